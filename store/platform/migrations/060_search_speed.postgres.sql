-- Facet counts read the category, the stock and the price of every
-- on-sale match: this index holds all three, so counting (and filtering
-- a price range) can be answered from the index.
CREATE INDEX items_onsale_facets ON items (category, stock, price_cents) WHERE archived_at IS NULL;
-- The catalog's versions: every statement that inserts or deletes items,
-- and every edit of a row that changes what a search finds, orders or
-- counts (its words, category, price, being on sale, being in stock),
-- takes a new search_version, and those that may change an item's words
-- (the text spelling correction picks from) a new search_words_version
-- too. A sale that leaves stock takes none, so cached results survive it.
-- Sequences, not a counter row, so that concurrent checkouts neither
-- queue nor deadlock on one row. A number is taken before its writer
-- commits, so the application also bumps a version in Redis once its own
-- writes have committed (searchgen).
CREATE SEQUENCE search_version;
CREATE SEQUENCE search_words_version;
CREATE FUNCTION items_search_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM nextval('search_version');
    RETURN NULL;
END $$;
CREATE FUNCTION items_search_words_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM nextval('search_words_version');
    RETURN NULL;
END $$;
CREATE TRIGGER items_search_version AFTER INSERT OR DELETE OR TRUNCATE ON items
    FOR EACH STATEMENT EXECUTE FUNCTION items_search_version();
CREATE TRIGGER items_search_version_update AFTER UPDATE ON items
    FOR EACH ROW WHEN (OLD.id IS DISTINCT FROM NEW.id OR OLD.name IS DISTINCT FROM NEW.name
        OR OLD.description IS DISTINCT FROM NEW.description OR OLD.category IS DISTINCT FROM NEW.category
        OR OLD.price_cents IS DISTINCT FROM NEW.price_cents OR OLD.archived_at IS DISTINCT FROM NEW.archived_at
        OR (OLD.stock > 0) IS DISTINCT FROM (NEW.stock > 0))
    EXECUTE FUNCTION items_search_version();
CREATE TRIGGER items_search_words_version AFTER INSERT OR UPDATE OF name, category, description OR DELETE OR TRUNCATE ON items
    FOR EACH STATEMENT EXECUTE FUNCTION items_search_words_version();
