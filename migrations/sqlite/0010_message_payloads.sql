CREATE TABLE `message_payloads` (
	`message_seq` integer PRIMARY KEY NOT NULL,
	`template_id` text,
	`subject` text,
	`body_html` text,
	`body_text` text,
	`sender_id` text,
	`variables` text
);
