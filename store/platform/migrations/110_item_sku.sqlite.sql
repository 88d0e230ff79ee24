-- Every item gets a stock-keeping unit, the key the catalog's CSV export
-- and import match rows on. Existing items get SF- and their id, six
-- digits at least (SF-000123), which never changes; new items get the
-- same from the catalog when they are created.
ALTER TABLE items ADD COLUMN sku TEXT;
UPDATE items SET sku = printf('SF-%06d', id) WHERE sku IS NULL;
CREATE UNIQUE INDEX items_sku ON items (sku);
