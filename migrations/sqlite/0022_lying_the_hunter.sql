CREATE TABLE `sequence_daily_counts` (
	`client_id` text NOT NULL,
	`sender_key` text NOT NULL,
	`day` integer NOT NULL,
	`queued` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`client_id`, `sender_key`, `day`)
);
--> statement-breakpoint
CREATE TABLE `sequence_enrollments` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`sequence_id` text NOT NULL,
	`client_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`current_step` integer,
	`next_step` integer DEFAULT 0 NOT NULL,
	`next_run_at` integer,
	`stop_reason` text,
	`history` text NOT NULL,
	`entered_at` integer NOT NULL,
	`ended_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sequence_enrollments_contact_idx` ON `sequence_enrollments` (`sequence_id`,`contact_id`);--> statement-breakpoint
CREATE INDEX `sequence_enrollments_list_idx` ON `sequence_enrollments` (`sequence_id`,`seq`);--> statement-breakpoint
CREATE INDEX `sequence_enrollments_by_contact_idx` ON `sequence_enrollments` (`contact_id`,`status`);--> statement-breakpoint
CREATE INDEX `sequence_enrollments_due_idx` ON `sequence_enrollments` (`sequence_id`,`status`,`next_run_at`);--> statement-breakpoint
CREATE TABLE `sequence_messages` (
	`message_seq` integer PRIMARY KEY NOT NULL,
	`sequence_id` text NOT NULL,
	`step` integer NOT NULL,
	`thread` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sequence_messages_step_idx` ON `sequence_messages` (`sequence_id`,`step`);--> statement-breakpoint
CREATE TABLE `sequences` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`steps` text NOT NULL,
	`sender_id` text,
	`stop_on_reply` integer DEFAULT true NOT NULL,
	`sending_window` text,
	`daily_limit` integer,
	`activated_at` integer,
	`archived_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `sequences_client_idx` ON `sequences` (`client_id`,`id`);--> statement-breakpoint
CREATE INDEX `messages_sequence_due_idx` ON `messages` (`sequence_id`,`status`,`next_attempt_at`) WHERE sequence_id IS NOT NULL;