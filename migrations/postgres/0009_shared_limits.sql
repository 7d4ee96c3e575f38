CREATE TABLE "rate_buckets" (
	"key" text PRIMARY KEY NOT NULL,
	"tokens" double precision NOT NULL,
	"at" bigint NOT NULL,
	"granted" double precision NOT NULL
);
--> statement-breakpoint
CREATE TABLE "send_windows" (
	"key" text NOT NULL,
	"start" bigint NOT NULL,
	"count" bigint NOT NULL,
	"granted" bigint NOT NULL,
	CONSTRAINT "send_windows_key_start_pk" PRIMARY KEY("key","start")
);
--> statement-breakpoint
CREATE TABLE "webhook_lanes" (
	"webhook_id" text PRIMARY KEY NOT NULL,
	"holder" text NOT NULL,
	"until" bigint NOT NULL
);
