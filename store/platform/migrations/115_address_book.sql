-- A member's saved delivery addresses, offered at checkout. At most one
-- per account is the default (is_default), the one checkout fills in.
CREATE TABLE addresses (
    id         {{ID}},
    user_id    BIGINT NOT NULL REFERENCES users (id),
    name       TEXT NOT NULL,
    line1      TEXT NOT NULL,
    line2      TEXT NOT NULL,
    city       TEXT NOT NULL,
    postcode   TEXT NOT NULL,
    country    TEXT NOT NULL,
    is_default BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL
);
CREATE INDEX addresses_user ON addresses (user_id, id);
