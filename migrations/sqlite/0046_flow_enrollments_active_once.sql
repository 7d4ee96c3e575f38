-- One active pass per contact and flow. SQLite's single writer kept this true already; the
-- same clean-up as PostgreSQL's runs first in case a data file says otherwise.
DELETE FROM `flow_runs` WHERE `enrollment_seq` IN (
  SELECT e.`seq` FROM `flow_enrollments` e
  WHERE e.`status` = 'active' AND EXISTS (
    SELECT 1 FROM `flow_enrollments` f
    WHERE f.`flow_id` = e.`flow_id` AND f.`contact_id` = e.`contact_id` AND f.`status` = 'active' AND f.`seq` < e.`seq`));--> statement-breakpoint
UPDATE `flow_enrollments` SET `status` = CASE `flow_kind` WHEN 'journey' THEN 'exited' ELSE 'stopped' END,
  `end_reason` = 'manual', `current_node` = NULL, `ended_at` = `updated_at`
WHERE `status` = 'active' AND EXISTS (
  SELECT 1 FROM `flow_enrollments` f
  WHERE f.`flow_id` = `flow_enrollments`.`flow_id` AND f.`contact_id` = `flow_enrollments`.`contact_id` AND f.`status` = 'active' AND f.`seq` < `flow_enrollments`.`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `flow_enrollments_active_idx` ON `flow_enrollments` (`flow_id`,`contact_id`) WHERE status = 'active';
