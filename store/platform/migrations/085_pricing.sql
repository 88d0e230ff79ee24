-- Discount codes. code_key is the code in upper case (codes are
-- case-insensitive); kind is percent (value in hundredths of a percent),
-- amount (value in cents) or free_shipping (value 0). starts / ends are
-- YYYY-MM-DD days, '' = open. max_uses / max_per_customer 0 = no limit;
-- used counts the uses of orders not cancelled.
CREATE TABLE discount_codes (
    id               {{ID}},
    code             TEXT NOT NULL,
    code_key         TEXT NOT NULL UNIQUE,
    kind             TEXT NOT NULL,
    value            BIGINT NOT NULL CHECK (value >= 0),
    min_subtotal     BIGINT NOT NULL DEFAULT 0 CHECK (min_subtotal >= 0),
    starts           TEXT NOT NULL DEFAULT '',
    ends             TEXT NOT NULL DEFAULT '',
    max_uses         BIGINT NOT NULL DEFAULT 0 CHECK (max_uses >= 0),
    max_per_customer BIGINT NOT NULL DEFAULT 0 CHECK (max_per_customer >= 0),
    used             BIGINT NOT NULL DEFAULT 0 CHECK (used >= 0),
    created_at       BIGINT NOT NULL
);
-- One row per order that used a code: customer is "user:<id>" or
-- "email:<lower-case address>", for the per-customer cap.
CREATE TABLE discount_uses (
    order_id BIGINT NOT NULL PRIMARY KEY REFERENCES orders (id),
    code_id  BIGINT NOT NULL REFERENCES discount_codes (id),
    customer TEXT NOT NULL
);
CREATE INDEX discount_uses_customer ON discount_uses (code_id, customer);
-- Shipping zones: countries is a comma-separated list of ISO codes, ''
-- for the zone of every country no other zone names. follows_knobs: the
-- rates are the SHIPPING_* knobs' until an admin saves the zone.
CREATE TABLE shipping_zones (
    id             {{ID}},
    name           TEXT NOT NULL,
    countries      TEXT NOT NULL,
    standard_cents BIGINT NOT NULL CHECK (standard_cents >= 0),
    express_cents  BIGINT NOT NULL CHECK (express_cents >= 0),
    free_over      BIGINT NOT NULL CHECK (free_over >= 0),
    follows_knobs  BOOLEAN NOT NULL DEFAULT FALSE
);
INSERT INTO shipping_zones (name, countries, standard_cents, express_cents, free_over, follows_knobs)
    VALUES ('United States', 'US', 499, 1499, 5000, TRUE);
INSERT INTO shipping_zones (name, countries, standard_cents, express_cents, free_over, follows_knobs)
    VALUES ('Europe', 'AT,BE,BG,HR,CY,CZ,DK,EE,FI,FR,DE,GR,HU,IE,IT,LV,LT,LU,MT,NL,PL,PT,RO,SK,SI,ES,SE,GB,CH,NO,IS', 499, 1499, 5000, TRUE);
INSERT INTO shipping_zones (name, countries, standard_cents, express_cents, free_over, follows_knobs)
    VALUES ('Rest of world', '', 1499, 2999, 15000, FALSE);
-- Tax rates by country in hundredths of a percent (2000 = 20%); a country
-- without a row pays none.
CREATE TABLE tax_rates (
    country TEXT NOT NULL PRIMARY KEY,
    rate_bp BIGINT NOT NULL CHECK (rate_bp >= 0 AND rate_bp <= 10000)
);
INSERT INTO tax_rates (country, rate_bp) VALUES ('GB', 2000), ('DE', 1900), ('FR', 2000), ('NL', 2100), ('SE', 2500), ('JP', 1000), ('AU', 1000), ('US', 0);
-- The order's money: subtotal (the lines), discount, the code, tax and
-- how it applied ('' before tax was recorded, 'included' or 'added');
-- shipping_cents and total_cents exist. Older orders' subtotal is their
-- total less their shipping.
ALTER TABLE orders ADD COLUMN subtotal_cents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN discount_cents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN discount_code TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN tax_cents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN tax_mode TEXT NOT NULL DEFAULT '';
UPDATE orders SET subtotal_cents = total_cents - shipping_cents;
