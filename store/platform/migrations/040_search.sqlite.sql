-- Full-text search over the catalog (SQLite FTS5). The index reads its
-- text from items (external content) and triggers keep it in step inside
-- the same transaction as every insert, edit and delete of an item.
CREATE VIRTUAL TABLE items_fts USING fts5(name, category, description, content='items', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
-- The index's own vocabulary: the words spelling correction picks from.
CREATE VIRTUAL TABLE items_vocab USING fts5vocab(items_fts, 'row');
CREATE TRIGGER items_fts_insert AFTER INSERT ON items BEGIN
    INSERT INTO items_fts (rowid, name, category, description) VALUES (new.id, new.name, new.category, new.description);
END;
CREATE TRIGGER items_fts_delete AFTER DELETE ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, name, category, description) VALUES ('delete', old.id, old.name, old.category, old.description);
END;
CREATE TRIGGER items_fts_update AFTER UPDATE OF name, category, description ON items BEGIN
    INSERT INTO items_fts (items_fts, rowid, name, category, description) VALUES ('delete', old.id, old.name, old.category, old.description);
    INSERT INTO items_fts (rowid, name, category, description) VALUES (new.id, new.name, new.category, new.description);
END;
INSERT INTO items_fts (items_fts) VALUES ('rebuild');
-- Price sorts and price filters.
CREATE INDEX items_price ON items (price_cents, id);
CREATE INDEX items_category_price ON items (category, price_cents, id);
