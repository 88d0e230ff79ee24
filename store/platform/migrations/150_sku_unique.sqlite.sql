-- A SKU names one item or one variant, whatever the case: skus holds
-- every item's and variant's SKU in lower case as its key, kept by the
-- triggers below in the same statement as the row, so a second item or
-- variant with a SKU already taken fails on every path (the admin's
-- forms, a new item's default SKU, the variants page, the CSV import).
-- SKUs already shared before this migration are made unique first: the
-- item with the lowest id keeps its SKU and later items get -<id> added;
-- a variant sharing an item's SKU, or an earlier variant's, gets -V<id>.
UPDATE items SET sku = sku || '-' || id
WHERE sku IS NOT NULL AND EXISTS (SELECT 1 FROM items o WHERE lower(o.sku) = lower(items.sku) AND o.id < items.id);
UPDATE item_variants SET sku = sku || '-V' || id
WHERE EXISTS (SELECT 1 FROM items i WHERE lower(i.sku) = lower(item_variants.sku))
   OR EXISTS (SELECT 1 FROM item_variants o WHERE lower(o.sku) = lower(item_variants.sku) AND o.id < item_variants.id);
CREATE TABLE skus (
    sku        TEXT PRIMARY KEY,
    item_id    BIGINT NOT NULL,
    variant_id BIGINT NOT NULL
);
INSERT INTO skus (sku, item_id, variant_id) SELECT lower(sku), id, 0 FROM items WHERE sku IS NOT NULL;
INSERT INTO skus (sku, item_id, variant_id) SELECT lower(sku), item_id, id FROM item_variants;
CREATE TRIGGER items_sku_insert AFTER INSERT ON items WHEN NEW.sku IS NOT NULL BEGIN
    INSERT INTO skus (sku, item_id, variant_id) VALUES (lower(NEW.sku), NEW.id, 0);
END;
CREATE TRIGGER items_sku_update AFTER UPDATE OF sku ON items BEGIN
    DELETE FROM skus WHERE sku = lower(OLD.sku) AND item_id = OLD.id AND variant_id = 0;
    INSERT INTO skus (sku, item_id, variant_id) SELECT lower(NEW.sku), NEW.id, 0 WHERE NEW.sku IS NOT NULL;
END;
CREATE TRIGGER items_sku_delete AFTER DELETE ON items BEGIN
    DELETE FROM skus WHERE sku = lower(OLD.sku) AND item_id = OLD.id AND variant_id = 0;
END;
CREATE TRIGGER item_variants_sku_insert AFTER INSERT ON item_variants BEGIN
    INSERT INTO skus (sku, item_id, variant_id) VALUES (lower(NEW.sku), NEW.item_id, NEW.id);
END;
CREATE TRIGGER item_variants_sku_update AFTER UPDATE OF sku, item_id ON item_variants BEGIN
    DELETE FROM skus WHERE sku = lower(OLD.sku) AND variant_id = OLD.id;
    INSERT INTO skus (sku, item_id, variant_id) VALUES (lower(NEW.sku), NEW.item_id, NEW.id);
END;
CREATE TRIGGER item_variants_sku_delete AFTER DELETE ON item_variants BEGIN
    DELETE FROM skus WHERE sku = lower(OLD.sku) AND variant_id = OLD.id;
END;
