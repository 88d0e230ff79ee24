-- What an order charged for its goods, apart from its delivery, so that a
-- return refunds the goods and never the delivery: goods_discount_cents is
-- the part of discount_cents that came off the lines (none for a
-- free-delivery code, whose discount is the delivery's price), and
-- shipping_tax_cents the part of tax_cents on the delivery.
ALTER TABLE orders ADD COLUMN goods_discount_cents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN shipping_tax_cents BIGINT NOT NULL DEFAULT 0;
-- Orders placed before: a discount came off the lines unless its code is a
-- free-delivery one.
UPDATE orders SET goods_discount_cents = discount_cents
    WHERE discount_cents > 0 AND NOT EXISTS (SELECT 1 FROM discount_codes c
        WHERE c.code_key = UPPER(orders.discount_code) AND c.kind = 'free_shipping');
-- Their delivery's tax: every line was taxed at one rate, so the delivery
-- holds its share of the tax (to the cent, rounded half up).
UPDATE orders SET shipping_tax_cents =
    (tax_cents * (shipping_cents - discount_cents + goods_discount_cents) + (subtotal_cents - discount_cents + shipping_cents) / 2)
    / (subtotal_cents - discount_cents + shipping_cents)
    WHERE tax_cents > 0 AND shipping_cents - discount_cents + goods_discount_cents > 0 AND subtotal_cents - discount_cents + shipping_cents > 0;
