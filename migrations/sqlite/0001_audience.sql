CREATE TABLE `contacts` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`id` text NOT NULL,
	`client_id` text NOT NULL,
	`email` text NOT NULL,
	`first_name` text,
	`last_name` text,
	`company` text,
	`phone` text,
	`status` text DEFAULT 'subscribed' NOT NULL,
	`timezone` text,
	`custom_fields` text DEFAULT '{}' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_id_idx` ON `contacts` (`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_client_email_idx` ON `contacts` (`client_id`,lower("email"));--> statement-breakpoint
CREATE INDEX `contacts_client_id_idx` ON `contacts` (`client_id`,`id`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`type` text NOT NULL,
	`contact_id` text,
	`message_id` text,
	`campaign_id` text,
	`journey_id` text,
	`sequence_id` text,
	`occurred_at` integer NOT NULL,
	`data` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_contact_type_idx` ON `events` (`contact_id`,`type`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `events_client_type_idx` ON `events` (`client_id`,`type`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `events_campaign_type_idx` ON `events` (`campaign_id`,`type`);--> statement-breakpoint
CREATE TABLE `contact_imports` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`status` text DEFAULT 'queued' NOT NULL,
	`file` text NOT NULL,
	`list_id` text,
	`update_existing` integer DEFAULT false NOT NULL,
	`total_rows` integer,
	`processed` integer DEFAULT 0 NOT NULL,
	`inserted` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`errors` text DEFAULT '[]' NOT NULL,
	`failure` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `contact_imports_client_idx` ON `contact_imports` (`client_id`,`id`);--> statement-breakpoint
CREATE TABLE `list_members` (
	`list_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`list_id`, `contact_id`)
);
--> statement-breakpoint
CREATE INDEX `list_members_contact_idx` ON `list_members` (`contact_id`);--> statement-breakpoint
CREATE TABLE `lists` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text,
	`member_count` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `lists_client_idx` ON `lists` (`client_id`,`id`);--> statement-breakpoint
CREATE TABLE `segments` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`match` text DEFAULT 'all' NOT NULL,
	`rule_groups` text NOT NULL,
	`estimated_size` integer,
	`estimated_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `segments_client_idx` ON `segments` (`client_id`,`id`);--> statement-breakpoint
CREATE TABLE `suppressions` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`email` text NOT NULL,
	`reason` text,
	`source` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `suppressions_client_email_idx` ON `suppressions` (`client_id`,`email`);--> statement-breakpoint
CREATE INDEX `suppressions_client_idx` ON `suppressions` (`client_id`,`id`);