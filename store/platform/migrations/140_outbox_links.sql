-- A message carrying a single-use link (a password reset, an address
-- confirmation) no longer holds the link in its stored bodies: they hold a
-- placeholder, link_ref names the account_tokens row, and the secret is
-- made when the message is sent, so the outbox never shows a working link.
-- 0: the message has no such link.
ALTER TABLE outbox ADD COLUMN link_ref BIGINT NOT NULL DEFAULT 0;
-- The links written before this change are readable in the outbox's
-- bodies: none of them works any more (a reset asks for a new one).
UPDATE account_tokens SET secret_sum = 'revoked: stored readable in the outbox' WHERE used_at IS NULL;
