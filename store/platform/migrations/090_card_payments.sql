-- Card payments. paid_cents is the money a payment provider confirmed for
-- the order (0 until then), payment_ref the provider's id of that payment
-- (a Stripe PaymentIntent), refunded_cents what went back so far: a refund
-- is taken by one conditional update on it, so concurrent refunds never
-- give back more than was paid.
ALTER TABLE orders ADD COLUMN paid_cents BIGINT NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN payment_ref TEXT NOT NULL DEFAULT '';
ALTER TABLE orders ADD COLUMN refunded_cents BIGINT NOT NULL DEFAULT 0;
-- Each refund: pending while the provider is asked, done once it agreed
-- (a refused one is deleted and its amount given back to refunded_cents).
CREATE TABLE order_refunds (
    id       {{ID}},
    order_id BIGINT NOT NULL REFERENCES orders (id),
    cents    BIGINT NOT NULL CHECK (cents > 0),
    status   TEXT NOT NULL,
    ref      TEXT NOT NULL DEFAULT '',
    actor    TEXT NOT NULL DEFAULT '',
    at       BIGINT NOT NULL
);
CREATE INDEX order_refunds_order ON order_refunds (order_id, id);
-- Payment provider events already handled, one row per event id, written in
-- the same transaction as the change the event made: a replayed event
-- finds its row and changes nothing.
CREATE TABLE payment_events (
    provider TEXT NOT NULL,
    event_id TEXT NOT NULL,
    order_id BIGINT NOT NULL,
    outcome  TEXT NOT NULL,
    at       BIGINT NOT NULL,
    PRIMARY KEY (provider, event_id)
);
