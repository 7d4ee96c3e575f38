CREATE TABLE `agent_registrations` (
	`id` text PRIMARY KEY NOT NULL,
	`handle_hash` text NOT NULL,
	`status` text NOT NULL,
	`client_name` text NOT NULL,
	`identity_type` text NOT NULL,
	`requested_scopes` text NOT NULL,
	`approved_scopes` text,
	`client_id` text,
	`subject` text,
	`key_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `agent_registrations_handle_idx` ON `agent_registrations` (`handle_hash`);--> statement-breakpoint
CREATE INDEX `agent_registrations_status_idx` ON `agent_registrations` (`status`,`expires_at`);--> statement-breakpoint
ALTER TABLE `api_keys` ADD `agent` integer DEFAULT false NOT NULL;