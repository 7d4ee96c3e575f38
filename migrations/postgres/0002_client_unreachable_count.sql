-- clients.unreachable_count kept by triggers, as SQLite's migration 0030 does: contacts bounced,
-- complained or whose address is suppressed, each once. New contacts are counted by the code that
-- inserts them (as on SQLite), so there is no insert trigger on contacts. A contact and a
-- suppression pair up as the unique keys do: same client, suppressions.email = lower(contacts.email).
CREATE FUNCTION "contacts_unreachable_ad"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status IN ('bounced', 'complained')
    OR EXISTS (SELECT 1 FROM suppressions WHERE client_id = OLD.client_id AND email = lower(OLD.email)) THEN
    UPDATE clients SET unreachable_count = unreachable_count - 1 WHERE id = OLD.client_id;
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "contacts_unreachable_ad" AFTER DELETE ON "contacts"
FOR EACH ROW EXECUTE FUNCTION "contacts_unreachable_ad"();
--> statement-breakpoint
-- Out as the row was, in as it is.
CREATE FUNCTION "contacts_unreachable_au"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE clients SET unreachable_count = unreachable_count - 1 WHERE id = OLD.client_id
    AND (OLD.status IN ('bounced', 'complained')
      OR EXISTS (SELECT 1 FROM suppressions WHERE client_id = OLD.client_id AND email = lower(OLD.email)));
  UPDATE clients SET unreachable_count = unreachable_count + 1 WHERE id = NEW.client_id
    AND (NEW.status IN ('bounced', 'complained')
      OR EXISTS (SELECT 1 FROM suppressions WHERE client_id = NEW.client_id AND email = lower(NEW.email)));
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "contacts_unreachable_au" AFTER UPDATE OF "status", "email", "client_id" ON "contacts"
FOR EACH ROW
WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.email IS DISTINCT FROM NEW.email
  OR OLD.client_id IS DISTINCT FROM NEW.client_id)
EXECUTE FUNCTION "contacts_unreachable_au"();
--> statement-breakpoint
-- A suppression adds its contact unless the contact already counts as bounced or complained (one
-- suppression per client and address). One function serves insert, delete and update: TG_OP says
-- which of the old and new rows take part.
CREATE FUNCTION "suppressions_unreachable"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP IN ('DELETE', 'UPDATE') THEN
    UPDATE clients SET unreachable_count = unreachable_count - 1 WHERE id = OLD.client_id
      AND EXISTS (SELECT 1 FROM contacts WHERE client_no = clients.no AND lower(email) = OLD.email
        AND status NOT IN ('bounced', 'complained'));
  END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    UPDATE clients SET unreachable_count = unreachable_count + 1 WHERE id = NEW.client_id
      AND EXISTS (SELECT 1 FROM contacts WHERE client_no = clients.no AND lower(email) = NEW.email
        AND status NOT IN ('bounced', 'complained'));
  END IF;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "suppressions_unreachable_ai" AFTER INSERT ON "suppressions"
FOR EACH ROW EXECUTE FUNCTION "suppressions_unreachable"();
--> statement-breakpoint
CREATE TRIGGER "suppressions_unreachable_ad" AFTER DELETE ON "suppressions"
FOR EACH ROW EXECUTE FUNCTION "suppressions_unreachable"();
--> statement-breakpoint
CREATE TRIGGER "suppressions_unreachable_au" AFTER UPDATE OF "email", "client_id" ON "suppressions"
FOR EACH ROW
WHEN (OLD.email IS DISTINCT FROM NEW.email OR OLD.client_id IS DISTINCT FROM NEW.client_id)
EXECUTE FUNCTION "suppressions_unreachable"();
