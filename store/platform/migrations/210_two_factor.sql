-- Two-factor sign-in (TOTP): an account's secret, sealed with a key
-- derived from the cookie keys (the database alone cannot mint codes), and
-- its recovery codes, kept only as digests, each usable once.
CREATE TABLE user_totp (
	user_id       BIGINT PRIMARY KEY REFERENCES users (id),
	secret_sealed TEXT NOT NULL,
	enabled_at    BIGINT NOT NULL
);
CREATE TABLE user_recovery_codes (
	user_id   BIGINT NOT NULL REFERENCES users (id),
	code_hash TEXT NOT NULL,
	used_at   BIGINT,
	PRIMARY KEY (user_id, code_hash)
);
