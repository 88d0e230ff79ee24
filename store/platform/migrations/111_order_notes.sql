-- The admin's notes on an order: who wrote what, when; oldest first on
-- the admin's order page. Notes are never edited or deleted.
CREATE TABLE order_notes (
    id       {{ID}},
    order_id BIGINT NOT NULL REFERENCES orders (id),
    author   TEXT NOT NULL,
    body     TEXT NOT NULL,
    at       BIGINT NOT NULL
);
CREATE INDEX order_notes_order ON order_notes (order_id, id);
-- The sales page reads orders by the time they were placed.
CREATE INDEX orders_created ON orders (created_at);
