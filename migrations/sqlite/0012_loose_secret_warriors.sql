CREATE TABLE `analytics_rollups` (
	`client_id` text NOT NULL,
	`bucket` integer NOT NULL,
	`channel` text NOT NULL,
	`campaign_id` text DEFAULT '' NOT NULL,
	`journey_id` text DEFAULT '' NOT NULL,
	`sequence_id` text DEFAULT '' NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`delivered` integer DEFAULT 0 NOT NULL,
	`opened` integer DEFAULT 0 NOT NULL,
	`machine_opened` integer DEFAULT 0 NOT NULL,
	`clicked` integer DEFAULT 0 NOT NULL,
	`replied` integer DEFAULT 0 NOT NULL,
	`bounced` integer DEFAULT 0 NOT NULL,
	`unsubscribed` integer DEFAULT 0 NOT NULL,
	`complained` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`client_id`, `bucket`, `channel`, `campaign_id`, `journey_id`, `sequence_id`)
);
--> statement-breakpoint
CREATE INDEX `analytics_rollups_source_idx` ON `analytics_rollups` (`campaign_id`,`journey_id`,`sequence_id`,`bucket`);--> statement-breakpoint
CREATE TABLE `deliverability_alerts` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`kind` text NOT NULL,
	`level` text NOT NULL,
	`value` real NOT NULL,
	`threshold` real NOT NULL,
	`window_sends` integer NOT NULL,
	`message` text NOT NULL,
	`campaign_ids` text NOT NULL,
	`created_at` integer NOT NULL,
	`resolved_at` integer
);
--> statement-breakpoint
CREATE INDEX `deliverability_alerts_client_idx` ON `deliverability_alerts` (`client_id`,`id`);--> statement-breakpoint
CREATE TABLE `domain_warmups` (
	`domain_id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`domain` text NOT NULL,
	`started_at` integer NOT NULL,
	`day` integer DEFAULT 0 NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE `journey_enrollments` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`journey_id` text NOT NULL,
	`client_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`current_node` text,
	`exit_reason` text,
	`history` text NOT NULL,
	`entered_at` integer NOT NULL,
	`ended_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `journey_enrollments_journey_idx` ON `journey_enrollments` (`journey_id`,`seq`);--> statement-breakpoint
CREATE INDEX `journey_enrollments_contact_idx` ON `journey_enrollments` (`journey_id`,`contact_id`,`status`);--> statement-breakpoint
CREATE INDEX `journey_enrollments_status_idx` ON `journey_enrollments` (`journey_id`,`status`,`exit_reason`);--> statement-breakpoint
CREATE INDEX `journey_enrollments_by_contact_idx` ON `journey_enrollments` (`contact_id`,`status`);--> statement-breakpoint
CREATE TABLE `journey_node_counts` (
	`journey_id` text NOT NULL,
	`node_id` text NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`journey_id`, `node_id`)
);
--> statement-breakpoint
CREATE TABLE `journey_runs` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`enrollment_seq` integer NOT NULL,
	`journey_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`node_id` text NOT NULL,
	`next_run_at` integer NOT NULL,
	`claimed` integer DEFAULT 0 NOT NULL,
	`wait_event` text,
	`wait_since` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `journey_runs_enrollment_idx` ON `journey_runs` (`enrollment_seq`);--> statement-breakpoint
CREATE INDEX `journey_runs_due_idx` ON `journey_runs` (`journey_id`,`next_run_at`);--> statement-breakpoint
CREATE INDEX `journey_runs_contact_idx` ON `journey_runs` (`contact_id`);--> statement-breakpoint
CREATE TABLE `journey_segment_seen` (
	`journey_id` text NOT NULL,
	`contact_id` text NOT NULL,
	PRIMARY KEY(`journey_id`, `contact_id`)
);
--> statement-breakpoint
CREATE TABLE `journeys` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`nodes` text NOT NULL,
	`allow_reentry` integer DEFAULT false NOT NULL,
	`trigger_kind` text,
	`trigger_ref` text,
	`trigger_event` text,
	`activated_at` integer,
	`archived_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `journeys_client_idx` ON `journeys` (`client_id`,`id`);--> statement-breakpoint
CREATE INDEX `journeys_trigger_idx` ON `journeys` (`status`,`trigger_kind`,`trigger_ref`);--> statement-breakpoint
ALTER TABLE `messages` ADD `journey_node` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `complained_at` integer;--> statement-breakpoint
CREATE INDEX `messages_journey_due_idx` ON `messages` (`journey_id`,`status`,`next_attempt_at`) WHERE journey_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `messages_transactional_idx` ON `messages` (`status`,`next_attempt_at`) WHERE campaign_id IS NULL AND journey_id IS NULL AND sequence_id IS NULL;