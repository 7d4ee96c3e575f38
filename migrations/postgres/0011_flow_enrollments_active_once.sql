-- A contact entered twice at once by two processes (possible before this index): the later
-- passes end (a journey's exit, a sequence's stop, as if ended by hand), without their queued
-- steps, and the first one goes on. The table is locked first: a process of the release before
-- could otherwise enter another duplicate before the index exists.
LOCK TABLE "flow_enrollments" IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
DELETE FROM "flow_runs" WHERE "enrollment_seq" IN (
  SELECT e."seq" FROM "flow_enrollments" e
  WHERE e."status" = 'active' AND EXISTS (
    SELECT 1 FROM "flow_enrollments" f
    WHERE f."flow_id" = e."flow_id" AND f."contact_id" = e."contact_id" AND f."status" = 'active' AND f."seq" < e."seq"));--> statement-breakpoint
UPDATE "flow_enrollments" e SET "status" = CASE e."flow_kind" WHEN 'journey' THEN 'exited' ELSE 'stopped' END,
  "end_reason" = 'manual', "current_node" = NULL, "ended_at" = e."updated_at"
WHERE e."status" = 'active' AND EXISTS (
  SELECT 1 FROM "flow_enrollments" f
  WHERE f."flow_id" = e."flow_id" AND f."contact_id" = e."contact_id" AND f."status" = 'active' AND f."seq" < e."seq");--> statement-breakpoint
CREATE UNIQUE INDEX "flow_enrollments_active_idx" ON "flow_enrollments" USING btree ("flow_id","contact_id") WHERE status = 'active';
