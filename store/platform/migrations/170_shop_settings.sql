-- The shop's settings, as the admin sets them (/admin/settings): one row,
-- absent until the first save (the knobs' defaults hold until then). An
-- order records the currency it was priced in, so that changing the shop's
-- currency never reinterprets an older order's amounts; the orders placed
-- before there was a choice were in dollars.
CREATE TABLE shop_settings (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	shop_name TEXT NOT NULL,
	currency TEXT NOT NULL,
	contact_email TEXT NOT NULL,
	address TEXT NOT NULL,
	updated_at BIGINT NOT NULL
);
ALTER TABLE orders ADD COLUMN currency TEXT NOT NULL DEFAULT 'USD';
-- Whether the admin saved a shipping zone (the setup checklist's step):
-- the zones the shop starts with are the defaults, not the merchant's.
ALTER TABLE shipping_zones ADD COLUMN saved_by_admin BOOLEAN NOT NULL DEFAULT FALSE;
