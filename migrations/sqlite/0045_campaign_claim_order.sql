DROP INDEX `messages_campaign_due_idx`;--> statement-breakpoint
CREATE INDEX `messages_campaign_due_idx` ON `messages` (`campaign_id`,`status`,`next_attempt_at`,`seq`);