DROP INDEX `contacts_client_email_idx`;--> statement-breakpoint
ALTER TABLE `contacts` ADD `client_no` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `clients` ADD `no` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `clients` SET `no` = rowid;--> statement-breakpoint
UPDATE `contacts` SET `client_no` = (SELECT `no` FROM `clients` WHERE `clients`.`id` = `contacts`.`client_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_client_no_email_idx` ON `contacts` (`client_no`,lower("email"));--> statement-breakpoint
CREATE UNIQUE INDEX `clients_no_idx` ON `clients` (`no`);
