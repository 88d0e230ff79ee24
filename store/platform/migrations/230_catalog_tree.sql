-- The catalog tree. items.category holds a category's name, its key,
-- which never changes; the shopper sees its title and reaches it at its
-- path (its ancestors' slugs and its own, at most three levels), which
-- move with a rename or a move. A category row is made for every name an
-- item uses (catalog.SyncCategories, and every item write).
CREATE TABLE categories (
    id         {{ID}},
    name       TEXT NOT NULL UNIQUE,
    title      TEXT NOT NULL,
    slug       TEXT NOT NULL,
    parent_id  BIGINT REFERENCES categories (id),
    path       TEXT NOT NULL UNIQUE,
    depth      INTEGER NOT NULL CHECK (depth BETWEEN 1 AND 3),
    updated_at BIGINT NOT NULL
);
CREATE INDEX categories_parent ON categories (parent_id);
-- A path a category had before a rename or a move: it answers 301 to the
-- category's path now. A path in use by a category is never looked up here.
CREATE TABLE category_moves (
    path        TEXT PRIMARY KEY,
    category_id BIGINT NOT NULL REFERENCES categories (id)
);
-- Items' tags (words a rule collection picks items by), lower case,
-- each surrounded by commas (",gift,sale,"), '' for none; and when the
-- item was added (the "new in the last 30 days" rule).
ALTER TABLE items ADD COLUMN tags TEXT NOT NULL DEFAULT '';
ALTER TABLE items ADD COLUMN created_at BIGINT NOT NULL DEFAULT 0;
UPDATE items SET created_at = updated_at;
