-- Discount codes and shipping zones can be retired: archived_at is when
-- (0: in use). A retired code is refused at checkout and a retired zone
-- prices no delivery; both leave the admin's lists unless asked for, and
-- orders that used them keep showing them (orders hold their own copy of
-- the code and the delivery price).
ALTER TABLE discount_codes ADD COLUMN archived_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE shipping_zones ADD COLUMN archived_at BIGINT NOT NULL DEFAULT 0;
