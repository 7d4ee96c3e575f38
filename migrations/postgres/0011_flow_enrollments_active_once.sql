-- A contact entered twice at once by two processes (possible before this index): the later
-- passes stop, without their queued steps, and the first one goes on.
DELETE FROM "flow_runs" WHERE "enrollment_seq" IN (
  SELECT e."seq" FROM "flow_enrollments" e
  WHERE e."status" = 'active' AND EXISTS (
    SELECT 1 FROM "flow_enrollments" f
    WHERE f."flow_id" = e."flow_id" AND f."contact_id" = e."contact_id" AND f."status" = 'active' AND f."seq" < e."seq"));--> statement-breakpoint
UPDATE "flow_enrollments" e SET "status" = 'stopped', "current_node" = NULL, "ended_at" = e."updated_at"
WHERE e."status" = 'active' AND EXISTS (
  SELECT 1 FROM "flow_enrollments" f
  WHERE f."flow_id" = e."flow_id" AND f."contact_id" = e."contact_id" AND f."status" = 'active' AND f."seq" < e."seq");--> statement-breakpoint
CREATE UNIQUE INDEX "flow_enrollments_active_idx" ON "flow_enrollments" USING btree ("flow_id","contact_id") WHERE status = 'active';
