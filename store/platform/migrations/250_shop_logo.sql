-- The shop's logo (/admin/settings), shown in every page's header: the
-- picture's hash in images, and its stored sizes as "<w>x<h>.<ext>" joined
-- by commas, narrowest first. No row: no logo.
CREATE TABLE shop_logo (
	id BIGINT NOT NULL PRIMARY KEY,
	hash TEXT NOT NULL,
	sizes TEXT NOT NULL,
	updated_at BIGINT NOT NULL
);
