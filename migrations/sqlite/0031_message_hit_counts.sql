-- message_first_hits: which tracking hits of a message made an event ('open', 'open:machine', a
-- clicked link's URL); later hits only add to messages.opens_count / clicks_count. Not filled
-- from the events of earlier versions (a scan of the whole event log): a message tracked before
-- the upgrade may make one more event per target.
CREATE TABLE `message_first_hits` (
	`message_seq` integer NOT NULL,
	`target` text NOT NULL,
	PRIMARY KEY(`message_seq`, `target`)
) WITHOUT ROWID;
--> statement-breakpoint
ALTER TABLE `messages` ADD `opens_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `messages` ADD `clicks_count` integer DEFAULT 0 NOT NULL;
