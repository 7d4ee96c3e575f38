CREATE TABLE `domains` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`domain` text NOT NULL,
	`dkim_selector` text NOT NULL,
	`dkim_public_key` text NOT NULL,
	`dkim_private_key` text NOT NULL,
	`dkim_verified` integer DEFAULT false NOT NULL,
	`spf_verified` integer DEFAULT false NOT NULL,
	`dmarc_verified` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`checks` text,
	`verified_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `domains_client_domain_idx` ON `domains` (`client_id`,`domain`);--> statement-breakpoint
CREATE INDEX `domains_domain_idx` ON `domains` (`domain`);--> statement-breakpoint
CREATE INDEX `domains_client_idx` ON `domains` (`client_id`,`id`);--> statement-breakpoint
CREATE INDEX `domains_status_idx` ON `domains` (`status`);--> statement-breakpoint
CREATE TABLE `senders` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`from_email` text NOT NULL,
	`from_name` text NOT NULL,
	`reply_to` text,
	`domain` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `senders_client_email_idx` ON `senders` (`client_id`,lower("from_email"));--> statement-breakpoint
CREATE INDEX `senders_client_idx` ON `senders` (`client_id`,`id`);--> statement-breakpoint
CREATE TABLE `templates` (
	`id` text PRIMARY KEY NOT NULL,
	`client_id` text NOT NULL,
	`name` text NOT NULL,
	`channel` text DEFAULT 'email' NOT NULL,
	`subject` text,
	`body_html` text,
	`body_text` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `templates_client_idx` ON `templates` (`client_id`,`id`);