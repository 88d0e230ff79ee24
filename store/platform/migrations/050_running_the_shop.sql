-- Archived items leave the shop but stay in past orders; NULL = on sale.
ALTER TABLE items ADD COLUMN archived_at BIGINT;
-- Banned accounts cannot sign in; NULL = in good standing.
ALTER TABLE users ADD COLUMN banned_at BIGINT;
-- The order timeline: one row per status change after the order was placed.
CREATE TABLE order_events (
    id       {{ID}},
    order_id BIGINT NOT NULL REFERENCES orders (id),
    status   TEXT NOT NULL,
    actor    TEXT NOT NULL,
    at       BIGINT NOT NULL
);
CREATE INDEX order_events_order ON order_events (order_id, id);
-- The admin's order list by status, newest first.
CREATE INDEX orders_status_id ON orders (status, id);
-- Reviews: one per account and item, editable.
CREATE TABLE reviews (
    item_id    BIGINT NOT NULL REFERENCES items (id),
    user_id    BIGINT NOT NULL REFERENCES users (id),
    rating     BIGINT NOT NULL CHECK (rating BETWEEN 1 AND 5),
    body       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (item_id, user_id)
);
