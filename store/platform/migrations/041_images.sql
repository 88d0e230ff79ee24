-- Product pictures. A picture is stored once per upload content (its
-- hash), at a few widths; items point at pictures in order (position 1
-- is the main one).
CREATE TABLE images (
    hash       TEXT PRIMARY KEY,
    created_at BIGINT NOT NULL
);
CREATE TABLE image_renditions (
    hash         TEXT NOT NULL REFERENCES images (hash),
    width        BIGINT NOT NULL,
    height       BIGINT NOT NULL,
    ext          TEXT NOT NULL,
    content_type TEXT NOT NULL,
    bytes        {{BLOB}} NOT NULL,
    PRIMARY KEY (hash, width)
);
CREATE TABLE item_images (
    item_id  BIGINT NOT NULL REFERENCES items (id),
    position BIGINT NOT NULL CHECK (position >= 1),
    hash     TEXT NOT NULL REFERENCES images (hash),
    PRIMARY KEY (item_id, position)
);
CREATE INDEX item_images_hash ON item_images (hash);
