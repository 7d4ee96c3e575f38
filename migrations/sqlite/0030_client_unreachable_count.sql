ALTER TABLE `clients` ADD `unreachable_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- clients.unreachable_count: contacts bounced hard, complained or whose address is suppressed,
-- each once (the deliverability score's list_hygiene), kept in the transaction of every write. A
-- contact and a suppression pair up as the unique keys do: same client, suppressions.email =
-- lower(contacts.email) (suppressions are stored lower-cased). New contacts are counted in bulk by
-- the code that inserts them, beside their search index (src/services/contacts/unreachable.ts): a
-- per-row INSERT trigger doubled the CPU of an insert, as FTS5's did (migration 0004). Deletes and
-- updates of contacts, and every write to suppressions, are counted by the triggers below.
CREATE TRIGGER `contacts_unreachable_ad` AFTER DELETE ON `contacts`
WHEN OLD.status IN ('bounced', 'complained')
  OR EXISTS (SELECT 1 FROM suppressions WHERE client_id = OLD.client_id AND email = lower(OLD.email))
BEGIN
  UPDATE clients SET unreachable_count = unreachable_count - 1 WHERE id = OLD.client_id;
END;
--> statement-breakpoint
-- Out as the row was, in as it is (an import sets status on every row it updates: skipped when
-- neither status nor email changed).
CREATE TRIGGER `contacts_unreachable_au` AFTER UPDATE OF status, email, client_id ON `contacts`
WHEN OLD.status IS NOT NEW.status OR OLD.email IS NOT NEW.email OR OLD.client_id IS NOT NEW.client_id
BEGIN
  UPDATE clients SET unreachable_count = unreachable_count - 1 WHERE id = OLD.client_id
    AND (OLD.status IN ('bounced', 'complained')
      OR EXISTS (SELECT 1 FROM suppressions WHERE client_id = OLD.client_id AND email = lower(OLD.email)));
  UPDATE clients SET unreachable_count = unreachable_count + 1 WHERE id = NEW.client_id
    AND (NEW.status IN ('bounced', 'complained')
      OR EXISTS (SELECT 1 FROM suppressions WHERE client_id = NEW.client_id AND email = lower(NEW.email)));
END;
--> statement-breakpoint
-- A suppression adds its contact unless the contact already counts as bounced or complained (one
-- suppression per client and address, so it was not counted as suppressed before). `+NEW.email`
-- drops the column affinity so the probe uses the lower(email) part of the contacts' unique index.
CREATE TRIGGER `suppressions_unreachable_ai` AFTER INSERT ON `suppressions`
BEGIN
  UPDATE clients SET unreachable_count = unreachable_count + 1 WHERE id = NEW.client_id
    AND EXISTS (SELECT 1 FROM contacts WHERE client_no = clients.no AND lower(email) = +NEW.email
      AND status NOT IN ('bounced', 'complained'));
END;
--> statement-breakpoint
CREATE TRIGGER `suppressions_unreachable_ad` AFTER DELETE ON `suppressions`
BEGIN
  UPDATE clients SET unreachable_count = unreachable_count - 1 WHERE id = OLD.client_id
    AND EXISTS (SELECT 1 FROM contacts WHERE client_no = clients.no AND lower(email) = +OLD.email
      AND status NOT IN ('bounced', 'complained'));
END;
--> statement-breakpoint
CREATE TRIGGER `suppressions_unreachable_au` AFTER UPDATE OF email, client_id ON `suppressions`
WHEN OLD.email IS NOT NEW.email OR OLD.client_id IS NOT NEW.client_id
BEGIN
  UPDATE clients SET unreachable_count = unreachable_count - 1 WHERE id = OLD.client_id
    AND EXISTS (SELECT 1 FROM contacts WHERE client_no = clients.no AND lower(email) = +OLD.email
      AND status NOT IN ('bounced', 'complained'));
  UPDATE clients SET unreachable_count = unreachable_count + 1 WHERE id = NEW.client_id
    AND EXISTS (SELECT 1 FROM contacts WHERE client_no = clients.no AND lower(email) = +NEW.email
      AND status NOT IN ('bounced', 'complained'));
END;
--> statement-breakpoint
UPDATE clients SET unreachable_count = (
  SELECT count(*) FROM contacts
  WHERE contacts.client_id = clients.id
    AND (contacts.status IN ('bounced', 'complained')
      OR EXISTS (SELECT 1 FROM suppressions WHERE suppressions.client_id = clients.id AND suppressions.email = lower(contacts.email)))
);
