CREATE TABLE `feedback_receipts` (
	`client_id` text NOT NULL,
	`provider` text NOT NULL,
	`last_received_at` integer NOT NULL,
	PRIMARY KEY(`client_id`, `provider`),
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
