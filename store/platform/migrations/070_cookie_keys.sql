-- The cookie keys of a shop started without COOKIE_KEYS, kept where every
-- instance on this database finds them: one row, inserted only if absent
-- by the first instance that starts (generated, or taken from an older
-- DATA_DIR/cookie-keys file) and read back by every instance.
CREATE TABLE cookie_keys (id INTEGER PRIMARY KEY CHECK (id = 1), secret TEXT NOT NULL, created_at BIGINT NOT NULL);
