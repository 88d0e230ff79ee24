-- What the checkout asks for: the delivery address, the guest's email, the
-- delivery and payment methods and the delivery price (total_cents now
-- includes it).
ALTER TABLE orders ADD COLUMN email TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN ship_name TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN ship_line1 TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN ship_line2 TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN ship_city TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN ship_postcode TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN ship_country TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN shipping_method TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN shipping_cents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN payment_method TEXT NOT NULL DEFAULT '';
-- Guests' orders belong to user 0 (store.GuestUserID): the row exists so
-- that they satisfy the foreign key. No password hash, and a username key
-- that registration cannot produce, so no one signs in as it.
INSERT INTO users (id, username, username_key, password_hash, is_admin, created_at) VALUES (0, 'Guest', '(guest)', '', FALSE, 0);
