-- Collections: a page of items the merchant made. A manual one lists
-- collection_items in their position order; a rule one picks every item on
-- sale that matches all its set rules (a tag, a price range, a "was"
-- price above the price, added in the last new_days days).
CREATE TABLE collections (
    id         {{ID}},
    slug       TEXT NOT NULL UNIQUE,
    title      TEXT NOT NULL,
    blurb      TEXT NOT NULL DEFAULT '',
    kind       TEXT NOT NULL CHECK (kind IN ('manual', 'rule')),
    rule_tag   TEXT NOT NULL DEFAULT '',
    rule_min   BIGINT,
    rule_max   BIGINT,
    rule_sale  BOOLEAN NOT NULL DEFAULT FALSE,
    rule_days  INTEGER NOT NULL DEFAULT 0,
    updated_at BIGINT NOT NULL
);
CREATE TABLE collection_items (
    collection_id BIGINT NOT NULL REFERENCES collections (id),
    position      INTEGER NOT NULL,
    item_id       BIGINT NOT NULL REFERENCES items (id),
    PRIMARY KEY (collection_id, position)
);
-- The home page may show a collection (its slug, '' for none) instead of
-- the featured items.
ALTER TABLE home_page ADD COLUMN collection TEXT NOT NULL DEFAULT '';
