-- Full-text search over the catalog (PostgreSQL). The document is a
-- generated column, so it is recomputed in the same statement as every
-- insert and edit; names weigh most, then the category, then the
-- description.
ALTER TABLE items ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', name), 'A') ||
    setweight(to_tsvector('english', category), 'B') ||
    setweight(to_tsvector('english', description), 'C')) STORED;
CREATE INDEX items_search ON items USING GIN (search);
-- The catalog's words as written (not stemmed): the words spelling
-- correction picks from. A trigger adds an item's words in the same
-- transaction as the insert or edit; words are added in sorted order so
-- two concurrent edits never wait on each other in a cycle.
CREATE TABLE search_words (word TEXT PRIMARY KEY);
CREATE FUNCTION items_search_words() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_words (word)
    SELECT DISTINCT w FROM regexp_split_to_table(lower(NEW.name || ' ' || NEW.category || ' ' || NEW.description), '[^[:alnum:]]+') AS w
    WHERE length(w) >= 3 ORDER BY w
    ON CONFLICT DO NOTHING;
    RETURN NEW;
END $$;
CREATE TRIGGER items_search_words_update AFTER UPDATE OF name, category, description ON items
    FOR EACH ROW EXECUTE FUNCTION items_search_words();
-- Inserts come in batches (seeding, imports): one statement-level pass.
CREATE FUNCTION items_search_words_batch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO search_words (word)
    SELECT DISTINCT w FROM inserted, regexp_split_to_table(lower(name || ' ' || category || ' ' || description), '[^[:alnum:]]+') AS w
    WHERE length(w) >= 3 ORDER BY w
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER items_search_words_insert AFTER INSERT ON items
    REFERENCING NEW TABLE AS inserted FOR EACH STATEMENT EXECUTE FUNCTION items_search_words_batch();
INSERT INTO search_words (word)
SELECT DISTINCT w FROM items, regexp_split_to_table(lower(name || ' ' || category || ' ' || description), '[^[:alnum:]]+') AS w
WHERE length(w) >= 3 ORDER BY w
ON CONFLICT DO NOTHING;
-- Price sorts and price filters.
CREATE INDEX items_price ON items (price_cents, id);
CREATE INDEX items_category_price ON items (category, price_cents, id);
