CREATE TABLE items (
    id          {{ID}},
    slug        TEXT NOT NULL UNIQUE,
    name        TEXT NOT NULL,
    description TEXT NOT NULL,
    category    TEXT NOT NULL,
    price_cents BIGINT NOT NULL CHECK (price_cents >= 0),
    stock       BIGINT NOT NULL CHECK (stock >= 0),
    updated_at  BIGINT NOT NULL
);
CREATE INDEX items_category ON items (category, id);
CREATE TABLE users (
    id            {{ID}},
    username      TEXT NOT NULL,
    username_key  TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    is_admin      BOOLEAN NOT NULL DEFAULT FALSE,
    created_at    BIGINT NOT NULL
);
CREATE TABLE orders (
    id           {{ID}},
    user_id      BIGINT NOT NULL REFERENCES users (id),
    status       TEXT NOT NULL,
    total_cents  BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    processed_at BIGINT
);
CREATE INDEX orders_user ON orders (user_id, id);
CREATE TABLE order_lines (
    order_id    BIGINT NOT NULL REFERENCES orders (id),
    item_id     BIGINT NOT NULL REFERENCES items (id),
    name        TEXT NOT NULL,
    price_cents BIGINT NOT NULL,
    qty         BIGINT NOT NULL CHECK (qty > 0),
    PRIMARY KEY (order_id, item_id)
);
