CREATE TABLE `sequence_enroll_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`sequence_id` text NOT NULL,
	`client_id` text NOT NULL,
	`audience` text NOT NULL,
	`max_contact_seq` integer NOT NULL,
	`cursor_seq` integer DEFAULT 0 NOT NULL,
	`first_run_at` integer NOT NULL,
	`entered_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
