-- A delivery address's state, province or territory (its ISO 3166-2 code
-- after the country's, '' where the country has none) and an optional
-- phone number for the carrier, on orders and in the address book. Older
-- addresses have neither.
ALTER TABLE orders ADD COLUMN ship_region TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN ship_phone TEXT NOT NULL DEFAULT '';
ALTER TABLE addresses ADD COLUMN region TEXT NOT NULL DEFAULT '';
ALTER TABLE addresses ADD COLUMN phone TEXT NOT NULL DEFAULT '';
