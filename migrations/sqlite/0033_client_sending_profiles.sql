-- sending_profiles: a client's own sending accounts (SMTP relay, Twilio, footer, ESP feedback
-- credentials), secrets encrypted; a client without a row sends with the instance settings.
CREATE TABLE `sending_profiles` (
	`client_id` text PRIMARY KEY NOT NULL,
	`profile` text NOT NULL,
	`version` integer NOT NULL,
	`feedback_token` text NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`client_id`) REFERENCES `clients`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sending_profiles_feedback_token_unique` ON `sending_profiles` (`feedback_token`);