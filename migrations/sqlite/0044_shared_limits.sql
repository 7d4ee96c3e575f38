CREATE TABLE `rate_buckets` (
	`key` text PRIMARY KEY NOT NULL,
	`tokens` real NOT NULL,
	`at` integer NOT NULL,
	`granted` real NOT NULL
);
--> statement-breakpoint
CREATE TABLE `send_windows` (
	`key` text NOT NULL,
	`start` integer NOT NULL,
	`count` integer NOT NULL,
	`granted` integer NOT NULL,
	PRIMARY KEY(`key`, `start`)
);
--> statement-breakpoint
CREATE TABLE `webhook_lanes` (
	`webhook_id` text PRIMARY KEY NOT NULL,
	`holder` text NOT NULL,
	`until` integer NOT NULL
);
