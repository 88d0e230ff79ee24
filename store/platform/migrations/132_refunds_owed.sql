-- Refunds owed: a refund is taken from what is refundable and written
-- here first (pending), then its payment provider is asked; one that could
-- not be given back yet stays pending and the refunds worker tries it again
-- until the provider says done. failed: the provider refused it for good,
-- for the admin to settle. payment_ref is the payment a refund gives back
-- when it is not the order's own (a payment that came after the order was
-- cancelled, or for another amount: one refund per such payment), and
-- method the payment method that gives it back ('': the order's). reason
-- says what the refund is for (cancel, return:<id>, late_payment,
-- mismatch, admin). attempts, last_error and next_try_at are the tries;
-- claimed_until keeps a try from being made twice at once; note is what
-- the admin wrote when settling it by hand; settled_at when it was done.
ALTER TABLE order_refunds ADD COLUMN payment_ref TEXT NOT NULL DEFAULT '';
ALTER TABLE order_refunds ADD COLUMN reason TEXT NOT NULL DEFAULT '';
ALTER TABLE order_refunds ADD COLUMN method TEXT NOT NULL DEFAULT '';
ALTER TABLE order_refunds ADD COLUMN attempts BIGINT NOT NULL DEFAULT 0;
ALTER TABLE order_refunds ADD COLUMN last_error TEXT NOT NULL DEFAULT '';
ALTER TABLE order_refunds ADD COLUMN next_try_at BIGINT NOT NULL DEFAULT 0;
ALTER TABLE order_refunds ADD COLUMN claimed_until BIGINT NOT NULL DEFAULT 0;
ALTER TABLE order_refunds ADD COLUMN note TEXT NOT NULL DEFAULT '';
ALTER TABLE order_refunds ADD COLUMN settled_at BIGINT NOT NULL DEFAULT 0;
UPDATE order_refunds SET settled_at = at WHERE status = 'done';
CREATE INDEX order_refunds_owed ON order_refunds (status, next_try_at);
CREATE UNIQUE INDEX order_refunds_payment ON order_refunds (payment_ref) WHERE payment_ref <> '';
