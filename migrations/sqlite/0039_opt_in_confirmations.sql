CREATE TABLE `opt_in_confirmations` (
	`source_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`sent_at` integer NOT NULL,
	PRIMARY KEY(`source_id`, `contact_id`)
);
