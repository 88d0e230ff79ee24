-- Facet counts read the category, the stock and the price of every
-- on-sale match: this index holds all three, so counting (and filtering
-- a price range) reads no item rows.
CREATE INDEX items_onsale_facets ON items (category, stock, price_cents) WHERE archived_at IS NULL;
-- Price sorts over the whole catalog walk on-sale items only.
CREATE INDEX items_onsale_price ON items (price_cents, category, stock) WHERE archived_at IS NULL;
-- The catalog's versions: every insert, edit and delete of an item bumps
-- n, and those that change an item's words (the text spelling correction
-- picks from) bump words too, in the same transaction. A search result
-- cached under a version is therefore exactly the catalog as it was then,
-- whichever process or writer changed it since.
CREATE TABLE search_version (id INTEGER PRIMARY KEY CHECK (id = 1), n BIGINT NOT NULL, words BIGINT NOT NULL);
INSERT INTO search_version (id, n, words) VALUES (1, 0, 0);
CREATE TRIGGER items_search_version_insert AFTER INSERT ON items BEGIN
    UPDATE search_version SET n = n + 1, words = words + 1 WHERE id = 1;
END;
CREATE TRIGGER items_search_version_update AFTER UPDATE ON items BEGIN
    UPDATE search_version SET n = n + 1 WHERE id = 1;
END;
CREATE TRIGGER items_search_version_words AFTER UPDATE OF name, category, description ON items BEGIN
    UPDATE search_version SET words = words + 1 WHERE id = 1;
END;
CREATE TRIGGER items_search_version_delete AFTER DELETE ON items BEGIN
    UPDATE search_version SET n = n + 1, words = words + 1 WHERE id = 1;
END;
