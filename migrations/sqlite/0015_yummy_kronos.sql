CREATE TABLE `journey_enroll_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`journey_id` text NOT NULL,
	`match` text NOT NULL,
	`rule_groups` text NOT NULL,
	`max_contact_seq` integer NOT NULL,
	`cursor_seq` integer DEFAULT 0 NOT NULL,
	`entered_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
