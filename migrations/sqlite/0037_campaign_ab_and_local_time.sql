DROP INDEX `messages_campaign_status_idx`;--> statement-breakpoint
ALTER TABLE `messages` ADD `variant` integer;--> statement-breakpoint
CREATE INDEX `messages_campaign_due_idx` ON `messages` (`campaign_id`,`status`,`next_attempt_at`);--> statement-breakpoint
ALTER TABLE `campaigns` ADD `send_at_local` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `variants` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `ab_test` text;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `ab_started_at` integer;--> statement-breakpoint
ALTER TABLE `campaigns` ADD `ab_decision` text;