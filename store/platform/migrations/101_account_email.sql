-- An account's email address (NULL: none yet), when it was verified, and
-- when an account made before addresses existed was asked for one (it is
-- asked once). email_key is the address in lower case, for the forgotten
-- password's lookup.
ALTER TABLE users ADD COLUMN email TEXT;
ALTER TABLE users ADD COLUMN email_key TEXT;
ALTER TABLE users ADD COLUMN email_verified_at BIGINT;
ALTER TABLE users ADD COLUMN email_asked_at BIGINT;
CREATE INDEX users_email_key ON users (email_key);
-- Single-use links emailed to an account: kind is verify (confirms email)
-- or reset (sets a new password). Only the SHA-256 of the link's secret is
-- kept; used_at is set once, by the request that uses it.
CREATE TABLE account_tokens (
    id         {{ID}},
    user_id    BIGINT NOT NULL REFERENCES users (id),
    kind       TEXT NOT NULL,
    secret_sum TEXT NOT NULL,
    email      TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT
);
CREATE INDEX account_tokens_user ON account_tokens (user_id, kind);
