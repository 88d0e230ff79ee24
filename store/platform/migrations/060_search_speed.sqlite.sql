-- Facet counts read the category, the stock and the price of every
-- on-sale match: this index holds all three, so counting (and filtering
-- a price range) reads no item rows.
CREATE INDEX items_onsale_facets ON items (category, stock, price_cents) WHERE archived_at IS NULL;
-- Price sorts over the whole catalog walk on-sale items only.
CREATE INDEX items_onsale_price ON items (price_cents, category, stock) WHERE archived_at IS NULL;
-- The catalog's versions: every insert and delete of an item, and every
-- edit that changes what a search finds, orders or counts (its words,
-- category, price, being on sale, being in stock) bumps n, and those that
-- change an item's words (the text spelling correction picks from) bump
-- words too, in the same transaction. A search result cached under a
-- version is therefore exactly the catalog as it was then, whichever
-- process or writer changed it since; a sale that leaves stock keeps it.
CREATE TABLE search_version (id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL, words BIGINT NOT NULL);
INSERT INTO search_version (id, n, words) VALUES (1, 0, 0);
CREATE TRIGGER items_search_version_insert AFTER INSERT ON items BEGIN
    UPDATE search_version SET n = n + 1, words = words + 1 WHERE id = 1;
END;
CREATE TRIGGER items_search_version_update AFTER UPDATE ON items
WHEN OLD.id IS NOT NEW.id OR OLD.name IS NOT NEW.name OR OLD.description IS NOT NEW.description
    OR OLD.category IS NOT NEW.category OR OLD.price_cents IS NOT NEW.price_cents
    OR OLD.archived_at IS NOT NEW.archived_at OR (OLD.stock > 0) IS NOT (NEW.stock > 0) BEGIN
    UPDATE search_version SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER items_search_version_words AFTER UPDATE OF name, category, description ON items BEGIN
    UPDATE search_version SET words = words + 1 WHERE id = 1;
END;
CREATE TRIGGER items_search_version_delete AFTER DELETE ON items BEGIN
    UPDATE search_version SET n = n + 1, words = words + 1 WHERE id = 1;
END;
