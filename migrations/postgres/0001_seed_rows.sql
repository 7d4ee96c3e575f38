-- The one-row counters the code expects to find (SQLite's migration 0009 inserts them): the event
-- sequence events.seq is taken from, and the webhook fan-out's mark in the events log.
INSERT INTO "event_sequence" ("id", "last_seq") VALUES (1, 0);
--> statement-breakpoint
INSERT INTO "webhook_dispatch" ("name", "last_event_seq") VALUES ('events', 0);
