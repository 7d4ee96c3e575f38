-- One flow engine: journeys and sequences run on one set of runtime tables. Enrollments, the
-- executor's queue, node counts, chunked-enrollment jobs and daily counts move into flow_*
-- tables, and a message names the flow that queued it as (source_kind, source_id, source_step)
-- instead of journey_id / sequence_id (+ sequence_messages). Every row is carried over: a
-- sequence run's next step becomes a run at its send node `step-<i>`, due when it was due.
CREATE TABLE `flow_enrollments` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`flow_kind` text NOT NULL,
	`flow_id` text NOT NULL,
	`client_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`current_node` text,
	`end_reason` text,
	`history` text NOT NULL,
	`entered_at` integer NOT NULL,
	`ended_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `flow_enrollments_flow_idx` ON `flow_enrollments` (`flow_id`,`seq`);--> statement-breakpoint
CREATE INDEX `flow_enrollments_contact_idx` ON `flow_enrollments` (`flow_id`,`contact_id`,`status`);--> statement-breakpoint
CREATE INDEX `flow_enrollments_status_idx` ON `flow_enrollments` (`flow_id`,`status`,`end_reason`);--> statement-breakpoint
CREATE INDEX `flow_enrollments_by_contact_idx` ON `flow_enrollments` (`contact_id`,`status`);--> statement-breakpoint
CREATE TABLE `flow_runs` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`enrollment_seq` integer NOT NULL,
	`flow_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`node_id` text NOT NULL,
	`next_run_at` integer NOT NULL,
	`claimed` integer DEFAULT 0 NOT NULL,
	`wait_event` text,
	`wait_since` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `flow_runs_enrollment_idx` ON `flow_runs` (`enrollment_seq`);--> statement-breakpoint
CREATE INDEX `flow_runs_due_idx` ON `flow_runs` (`flow_id`,`next_run_at`);--> statement-breakpoint
CREATE INDEX `flow_runs_contact_idx` ON `flow_runs` (`contact_id`);--> statement-breakpoint
CREATE TABLE `flow_node_counts` (
	`flow_id` text NOT NULL,
	`node_id` text NOT NULL,
	`passed` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`flow_id`, `node_id`)
);
--> statement-breakpoint
CREATE TABLE `flow_enroll_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`flow_id` text NOT NULL,
	`client_id` text NOT NULL,
	`audience` text NOT NULL,
	`max_contact_seq` integer NOT NULL,
	`cursor_seq` integer DEFAULT 0 NOT NULL,
	`first_run_at` integer NOT NULL,
	`entered_at` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `flow_daily_counts` (
	`client_id` text NOT NULL,
	`sender_key` text NOT NULL,
	`day` integer NOT NULL,
	`queued` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`client_id`, `sender_key`, `day`)
);
--> statement-breakpoint
CREATE TABLE `message_threads` (
	`message_seq` integer PRIMARY KEY NOT NULL,
	`thread` text NOT NULL
);
--> statement-breakpoint
-- Journey enrollments keep their seq (their runs point at it); sequence enrollments follow,
-- in their old order, so newest-first listings stay in the same order.
INSERT INTO `flow_enrollments` (`seq`, `flow_kind`, `flow_id`, `client_id`, `contact_id`, `status`, `current_node`, `end_reason`, `history`, `entered_at`, `ended_at`, `updated_at`)
SELECT `seq`, 'journey', `journey_id`, `client_id`, `contact_id`, `status`, `current_node`, `exit_reason`, `history`, `entered_at`, `ended_at`, `updated_at`
FROM `journey_enrollments` ORDER BY `seq`;--> statement-breakpoint
INSERT INTO `flow_enrollments` (`flow_kind`, `flow_id`, `client_id`, `contact_id`, `status`, `current_node`, `end_reason`, `history`, `entered_at`, `ended_at`, `updated_at`)
SELECT 'sequence', `sequence_id`, `client_id`, `contact_id`, `status`,
  CASE WHEN `current_step` IS NULL THEN NULL ELSE 'step-' || `current_step` END,
  `stop_reason`, `history`, `entered_at`, `ended_at`, `updated_at`
FROM `sequence_enrollments` ORDER BY `seq`;--> statement-breakpoint
INSERT INTO `flow_runs` (`enrollment_seq`, `flow_id`, `contact_id`, `node_id`, `next_run_at`, `claimed`, `wait_event`, `wait_since`)
SELECT `enrollment_seq`, `journey_id`, `contact_id`, `node_id`, `next_run_at`, `claimed`, `wait_event`, `wait_since`
FROM `journey_runs` ORDER BY `seq`;--> statement-breakpoint
-- A contact enters a sequence once, so (sequence, contact) finds the run's new enrollment.
INSERT INTO `flow_runs` (`enrollment_seq`, `flow_id`, `contact_id`, `node_id`, `next_run_at`)
SELECT f.`seq`, s.`sequence_id`, s.`contact_id`, 'step-' || s.`next_step`, coalesce(s.`next_run_at`, s.`updated_at`)
FROM `sequence_enrollments` s
JOIN `flow_enrollments` f ON f.`flow_kind` = 'sequence' AND f.`flow_id` = s.`sequence_id` AND f.`contact_id` = s.`contact_id`
WHERE s.`status` = 'active' ORDER BY s.`seq`;--> statement-breakpoint
INSERT INTO `flow_node_counts` (`flow_id`, `node_id`, `passed`)
SELECT `journey_id`, `node_id`, `passed` FROM `journey_node_counts`;--> statement-breakpoint
INSERT INTO `flow_enroll_jobs` (`id`, `flow_id`, `client_id`, `audience`, `max_contact_seq`, `cursor_seq`, `first_run_at`, `entered_at`, `created_at`)
SELECT j.`id`, j.`journey_id`, coalesce(jr.`client_id`, ''),
  json_object('contact_ids', json('[]'), 'segment', json_object('match', j.`match`, 'rule_groups', json(j.`rule_groups`)), 'list_id', NULL),
  j.`max_contact_seq`, j.`cursor_seq`, j.`entered_at`, j.`entered_at`, j.`created_at`
FROM `journey_enroll_jobs` j LEFT JOIN `journeys` jr ON jr.`id` = j.`journey_id`;--> statement-breakpoint
INSERT INTO `flow_enroll_jobs` (`id`, `flow_id`, `client_id`, `audience`, `max_contact_seq`, `cursor_seq`, `first_run_at`, `entered_at`, `created_at`)
SELECT `id`, `sequence_id`, `client_id`, `audience`, `max_contact_seq`, `cursor_seq`, `first_run_at`, `entered_at`, `created_at`
FROM `sequence_enroll_jobs`;--> statement-breakpoint
INSERT INTO `flow_daily_counts` (`client_id`, `sender_key`, `day`, `queued`)
SELECT `client_id`, `sender_key`, `day`, `queued` FROM `sequence_daily_counts`;--> statement-breakpoint
ALTER TABLE `messages` ADD `source_kind` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `source_id` text;--> statement-breakpoint
ALTER TABLE `messages` ADD `source_step` text;--> statement-breakpoint
UPDATE `messages` SET `source_kind` = 'journey', `source_id` = `journey_id`, `source_step` = `journey_node`
WHERE `journey_id` IS NOT NULL;--> statement-breakpoint
UPDATE `messages` SET `source_kind` = 'sequence', `source_id` = `sequence_id`,
  `source_step` = (SELECT 'step-' || sm.`step` FROM `sequence_messages` sm WHERE sm.`message_seq` = `messages`.`seq`)
WHERE `sequence_id` IS NOT NULL;--> statement-breakpoint
INSERT INTO `message_threads` (`message_seq`, `thread`)
SELECT `message_seq`, `thread` FROM `sequence_messages` WHERE json_array_length(`thread`) > 0;--> statement-breakpoint
DROP INDEX `messages_journey_due_idx`;--> statement-breakpoint
DROP INDEX `messages_sequence_due_idx`;--> statement-breakpoint
DROP INDEX `messages_transactional_idx`;--> statement-breakpoint
ALTER TABLE `messages` DROP COLUMN `journey_id`;--> statement-breakpoint
ALTER TABLE `messages` DROP COLUMN `sequence_id`;--> statement-breakpoint
ALTER TABLE `messages` DROP COLUMN `journey_node`;--> statement-breakpoint
CREATE INDEX `messages_flow_due_idx` ON `messages` (`source_id`,`status`,`next_attempt_at`) WHERE source_id IS NOT NULL;--> statement-breakpoint
CREATE INDEX `messages_transactional_idx` ON `messages` (`status`,`next_attempt_at`) WHERE campaign_id IS NULL AND source_id IS NULL;--> statement-breakpoint
DROP TABLE `journey_enrollments`;--> statement-breakpoint
DROP TABLE `journey_runs`;--> statement-breakpoint
DROP TABLE `journey_node_counts`;--> statement-breakpoint
DROP TABLE `journey_enroll_jobs`;--> statement-breakpoint
DROP TABLE `sequence_enrollments`;--> statement-breakpoint
DROP TABLE `sequence_messages`;--> statement-breakpoint
DROP TABLE `sequence_daily_counts`;--> statement-breakpoint
DROP TABLE `sequence_enroll_jobs`;
