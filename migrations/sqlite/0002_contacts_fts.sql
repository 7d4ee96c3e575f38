-- Full-text index over the searchable contact fields (DESIGN.md §7: every query term matches
-- the prefix of a word of email, names, company or phone). unicode61 splits at punctuation,
-- so an email's words are split at @ . - _ +. External content: kept in step by triggers.
CREATE VIRTUAL TABLE `contacts_fts` USING fts5(
	email, first_name, last_name, company, phone,
	content='contacts', content_rowid='seq',
	tokenize='unicode61 remove_diacritics 2', prefix='2 3'
);
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_ai` AFTER INSERT ON `contacts` BEGIN
	INSERT INTO contacts_fts(rowid, email, first_name, last_name, company, phone)
	VALUES (new.seq, new.email, new.first_name, new.last_name, new.company, new.phone);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_ad` AFTER DELETE ON `contacts` BEGIN
	INSERT INTO contacts_fts(contacts_fts, rowid, email, first_name, last_name, company, phone)
	VALUES ('delete', old.seq, old.email, old.first_name, old.last_name, old.company, old.phone);
END;
--> statement-breakpoint
CREATE TRIGGER `contacts_fts_au` AFTER UPDATE OF email, first_name, last_name, company, phone ON `contacts` BEGIN
	INSERT INTO contacts_fts(contacts_fts, rowid, email, first_name, last_name, company, phone)
	VALUES ('delete', old.seq, old.email, old.first_name, old.last_name, old.company, old.phone);
	INSERT INTO contacts_fts(rowid, email, first_name, last_name, company, phone)
	VALUES (new.seq, new.email, new.first_name, new.last_name, new.company, new.phone);
END;
