-- The five trigram indexes of 0003_contacts_search go: keeping them up cost an import most of
-- its time (a 20,000-row batch took ~1.9 s with them, ~0.7 s without), while the contains and
-- ends_with rules they served scan a client's contacts on SQLite too. Search keeps its index.
DROP INDEX IF EXISTS contacts_email_trgm
--> statement-breakpoint
DROP INDEX IF EXISTS contacts_first_name_trgm
--> statement-breakpoint
DROP INDEX IF EXISTS contacts_last_name_trgm
--> statement-breakpoint
DROP INDEX IF EXISTS contacts_company_trgm
--> statement-breakpoint
DROP INDEX IF EXISTS contacts_phone_trgm
