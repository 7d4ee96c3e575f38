CREATE TABLE `campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`channel` text DEFAULT 'email' NOT NULL,
	`subject` text,
	`body_html` text,
	`body_text` text,
	`template_id` text,
	`list_id` text,
	`segment_id` text,
	`sender_id` text,
	`scheduled_at` integer,
	`total_recipients` integer,
	`failure_reason` text,
	`snapshot_cursor` text,
	`snapshot_done` integer DEFAULT false NOT NULL,
	`launched_at` integer,
	`started_at` integer,
	`completed_at` integer,
	`sent` integer DEFAULT 0 NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`delivered` integer DEFAULT 0 NOT NULL,
	`opened` integer DEFAULT 0 NOT NULL,
	`machine_opened` integer DEFAULT 0 NOT NULL,
	`clicked` integer DEFAULT 0 NOT NULL,
	`replied` integer DEFAULT 0 NOT NULL,
	`bounced` integer DEFAULT 0 NOT NULL,
	`unsubscribed` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaigns_client_idx` ON `campaigns` (`client_id`,`id`);--> statement-breakpoint
CREATE INDEX `campaigns_status_idx` ON `campaigns` (`status`,`scheduled_at`);--> statement-breakpoint
CREATE TABLE `message_contents` (
	`message_seq` integer PRIMARY KEY NOT NULL,
	`subject` text,
	`body_html` text,
	`body_text` text,
	`headers` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`client_id` text NOT NULL,
	`campaign_id` text,
	`journey_id` text,
	`sequence_id` text,
	`contact_id` text NOT NULL,
	`channel` text NOT NULL,
	`to_address` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`skip_reason` text,
	`provider` text,
	`provider_message_id` text,
	`error` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`next_attempt_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`sent_at` integer,
	`delivered_at` integer,
	`opened_at` integer,
	`machine_opened_at` integer,
	`clicked_at` integer,
	`bounced_at` integer,
	`replied_at` integer,
	`unsubscribed_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_id_idx` ON `messages` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_campaign_contact_idx` ON `messages` (`campaign_id`,`contact_id`) WHERE campaign_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `messages_campaign_status_idx` ON `messages` (`campaign_id`,`status`,`seq`);--> statement-breakpoint
CREATE INDEX `messages_client_idx` ON `messages` (`client_id`,`id`);--> statement-breakpoint
CREATE INDEX `messages_contact_idx` ON `messages` (`contact_id`);--> statement-breakpoint
CREATE INDEX `messages_provider_id_idx` ON `messages` (`provider_message_id`);--> statement-breakpoint
CREATE INDEX `messages_inflight_idx` ON `messages` (`next_attempt_at`) WHERE status = 'sending';--> statement-breakpoint
CREATE TABLE `replies` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`message_id` text,
	`campaign_id` text,
	`journey_id` text,
	`sequence_id` text,
	`contact_id` text,
	`from_address` text NOT NULL,
	`subject` text,
	`snippet` text NOT NULL,
	`body_text` text,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `replies_client_idx` ON `replies` (`client_id`,`id`);--> statement-breakpoint
CREATE INDEX `replies_message_idx` ON `replies` (`message_id`);