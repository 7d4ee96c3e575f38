ALTER TABLE `clients` ADD `contact_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
UPDATE `clients` SET `contact_count` = (SELECT count(*) FROM `contacts` WHERE `contacts`.`client_id` = `clients`.`id`);
--> statement-breakpoint
-- A 2-and-3-character prefix index again (dropped in 0004): without it a common prefix term such
-- as the "com" of a whole email address expands to every contact. Rebuilt from the table.
DROP TABLE `contacts_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `contacts_fts` USING fts5(
	email, first_name, last_name, company, phone,
	content='contacts', content_rowid='seq',
	tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
--> statement-breakpoint
INSERT INTO `contacts_fts`(`contacts_fts`) VALUES ('rebuild');
