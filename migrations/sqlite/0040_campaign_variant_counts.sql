CREATE TABLE `campaign_variant_counts` (
	`campaign_id` text NOT NULL,
	`variant` integer NOT NULL,
	`sent` integer DEFAULT 0 NOT NULL,
	`delivered` integer DEFAULT 0 NOT NULL,
	`opened` integer DEFAULT 0 NOT NULL,
	`clicked` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`campaign_id`, `variant`)
);
