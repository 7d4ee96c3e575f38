CREATE TABLE "job_slots" (
	"name" text PRIMARY KEY NOT NULL,
	"slot_at" bigint NOT NULL
);
