-- Options and variants. An item lists up to three option names in
-- option_names (comma-separated, '' for none); an item with options sells
-- only through its variants, one per offered combination, each with its own
-- SKU, stock and optionally price, compare-at price and picture. Its
-- items.stock is then the sum of its variants' stock, kept in the same
-- transactions. An item without options has one implicit variant, the item
-- row itself (variant id 0 everywhere), so existing carts and orders keep
-- working.
ALTER TABLE items ADD COLUMN option_names TEXT NOT NULL DEFAULT '';
CREATE TABLE item_variants (
    id               {{ID}},
    item_id          BIGINT NOT NULL REFERENCES items (id),
    sku              TEXT NOT NULL UNIQUE,
    option1          TEXT NOT NULL DEFAULT '',
    option2          TEXT NOT NULL DEFAULT '',
    option3          TEXT NOT NULL DEFAULT '',
    price_cents      BIGINT CHECK (price_cents >= 0),
    compare_at_cents BIGINT CHECK (compare_at_cents >= 0),
    stock            BIGINT NOT NULL CHECK (stock >= 0),
    picture          INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX item_variants_item ON item_variants (item_id, id);
-- Order lines are per variant: the key gains the variant (0 for an item
-- without options) and each line keeps the SKU and the options it was sold
-- with.
ALTER TABLE order_lines ADD COLUMN variant_id BIGINT NOT NULL DEFAULT 0;
ALTER TABLE order_lines ADD COLUMN sku TEXT NOT NULL DEFAULT '';
ALTER TABLE order_lines ADD COLUMN variant TEXT NOT NULL DEFAULT '';
UPDATE order_lines l SET sku = COALESCE(i.sku, '') FROM items i WHERE i.id = l.item_id;
ALTER TABLE order_lines DROP CONSTRAINT order_lines_pkey;
ALTER TABLE order_lines ADD PRIMARY KEY (order_id, item_id, variant_id);
