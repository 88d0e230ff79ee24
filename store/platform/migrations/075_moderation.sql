-- Reviews a moderator hid: out of the item's page, its rating and count;
-- NULL = shown. hidden_by is the moderator's name.
ALTER TABLE reviews ADD COLUMN hidden_at BIGINT;
ALTER TABLE reviews ADD COLUMN hidden_by TEXT;
-- The moderation page's list of hidden reviews, newest first.
CREATE INDEX reviews_hidden ON reviews (hidden_at) WHERE hidden_at IS NOT NULL;
-- The moderation page's list of banned accounts, most recent first.
CREATE INDEX users_banned ON users (banned_at) WHERE banned_at IS NOT NULL;
