CREATE TABLE `oauth_used_assertions` (
	`issuer` text NOT NULL,
	`jti` text NOT NULL,
	`expires_at` integer NOT NULL,
	PRIMARY KEY(`issuer`, `jti`)
);
