-- Returns of delivered orders. A return moves requested -> approved |
-- rejected, approved -> received -> refunded; refunding is held while the
-- payment method gives the money back, so two refunds of one return
-- cannot both run. refund_cents is what was given back, restocked whether
-- receiving it put the stock back.
CREATE TABLE returns (
    id           {{ID}},
    order_id     BIGINT NOT NULL REFERENCES orders (id),
    status       TEXT NOT NULL,
    reason       TEXT NOT NULL,
    refund_cents BIGINT NOT NULL DEFAULT 0,
    restocked    INTEGER NOT NULL DEFAULT 0,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE INDEX returns_order ON returns (order_id, id);
CREATE INDEX returns_status ON returns (status, id);
-- The lines of a return: which order line (its item and variant, 0 for
-- an item without options) and how many, at the price the order paid.
CREATE TABLE return_lines (
    return_id   BIGINT NOT NULL REFERENCES returns (id),
    item_id     BIGINT NOT NULL,
    variant_id  BIGINT NOT NULL DEFAULT 0,
    qty         BIGINT NOT NULL CHECK (qty > 0),
    price_cents BIGINT NOT NULL,
    PRIMARY KEY (return_id, item_id, variant_id)
);
