-- The shop's information pages (/admin/pages, served at /pages/<slug>):
-- policies, contact, about. body is plain text; the views escape it and
-- make links of its http(s) URLs.
CREATE TABLE info_pages (
	slug TEXT NOT NULL PRIMARY KEY,
	title TEXT NOT NULL,
	body TEXT NOT NULL,
	updated_at BIGINT NOT NULL
);
