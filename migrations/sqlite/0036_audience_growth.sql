CREATE TABLE `consents` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`client_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`list_id` text,
	`action` text NOT NULL,
	`source` text NOT NULL,
	`form_id` text,
	`ip` text,
	`user_agent` text,
	`consent_text` text,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consents_contact_idx` ON `consents` (`contact_id`,`seq`);--> statement-breakpoint
CREATE TABLE `forms` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`list_ids` text NOT NULL,
	`fields` text NOT NULL,
	`double_opt_in` integer DEFAULT true NOT NULL,
	`confirmation_template_id` text,
	`consent_text` text NOT NULL,
	`success_url` text,
	`confirmed_url` text,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `forms_client_idx` ON `forms` (`client_id`,`id`);--> statement-breakpoint
ALTER TABLE `contacts` ADD `sms_opt_out` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `list_members` ADD `status` text DEFAULT 'confirmed' NOT NULL;--> statement-breakpoint
ALTER TABLE `list_members` ADD `confirmed_at` integer;--> statement-breakpoint
CREATE INDEX `list_members_unconfirmed_idx` ON `list_members` (`added_at`) WHERE "list_members"."status" = 'unconfirmed';--> statement-breakpoint
ALTER TABLE `lists` ADD `opt_in` text DEFAULT 'single' NOT NULL;--> statement-breakpoint
ALTER TABLE `lists` ADD `public` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `lists` ADD `public_name` text;--> statement-breakpoint
ALTER TABLE `lists` ADD `unconfirmed_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `list_members` SET `confirmed_at` = `added_at`;