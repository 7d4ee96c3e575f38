ALTER TABLE `domains` ADD `warmup` integer;--> statement-breakpoint
ALTER TABLE `messages` ADD `defer_reason` text;--> statement-breakpoint
CREATE INDEX `messages_deferred_idx` ON `messages` (`campaign_id`,`defer_reason`,`next_attempt_at`) WHERE status = 'queued' AND defer_reason IS NOT NULL;