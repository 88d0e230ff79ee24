-- The carrier's tracking number, given by the admin when the order ships.
ALTER TABLE orders ADD COLUMN tracking TEXT NOT NULL DEFAULT '';
