-- The home page as the merchant writes it (/admin/home): one row, absent
-- until the first save. featured is the featured items' ids in order,
-- separated by commas.
CREATE TABLE home_page (
	id INTEGER PRIMARY KEY CHECK (id = 1),
	hero_title TEXT NOT NULL,
	hero_text TEXT NOT NULL,
	featured TEXT NOT NULL,
	show_articles BOOLEAN NOT NULL,
	updated_at BIGINT NOT NULL
);
