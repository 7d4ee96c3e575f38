-- events.seq: the commit order fan-out reads by (src/db/events.ts says why not rowid). Existing
-- events keep their order: seq = rowid, which is also what the old high-water mark counted, so
-- the renamed mark needs no translation. SQLite cannot add a NOT NULL column without a default,
-- so the table is rebuilt.
ALTER TABLE `webhook_dispatch` RENAME COLUMN "last_event_rowid" TO "last_event_seq";--> statement-breakpoint
INSERT INTO `webhook_dispatch` (`name`, `last_event_seq`) SELECT 'events', 0 WHERE NOT EXISTS (SELECT 1 FROM `webhook_dispatch` WHERE `name` = 'events');--> statement-breakpoint
CREATE TABLE `event_sequence` (
	`id` integer PRIMARY KEY NOT NULL,
	`last_seq` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `__new_events` (
	`id` text PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
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
INSERT INTO `__new_events` (`id`, `seq`, `client_id`, `type`, `contact_id`, `message_id`, `campaign_id`, `journey_id`, `sequence_id`, `occurred_at`, `data`)
SELECT `id`, rowid, `client_id`, `type`, `contact_id`, `message_id`, `campaign_id`, `journey_id`, `sequence_id`, `occurred_at`, `data` FROM `events` ORDER BY rowid;--> statement-breakpoint
DROP TABLE `events`;--> statement-breakpoint
ALTER TABLE `__new_events` RENAME TO `events`;--> statement-breakpoint
CREATE UNIQUE INDEX `events_seq_idx` ON `events` (`seq`);--> statement-breakpoint
CREATE INDEX `events_contact_type_idx` ON `events` (`contact_id`,`type`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `events_client_type_idx` ON `events` (`client_id`,`type`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `events_campaign_type_idx` ON `events` (`campaign_id`,`type`);--> statement-breakpoint
INSERT INTO `event_sequence` (`id`, `last_seq`) SELECT 1, coalesce(max(`seq`), 0) FROM `events`;
