// Package media owns the items' pictures: processing an upload (decode,
// check, strip, re-encode at widths 320, 640 and 1280, bounded in memory
// and in concurrent work), storing the renditions in SQL by content hash,
// an item's ordered pictures, and serving one rendition.
//
// Tables: images, image_renditions, item_images. No Redis keys.
//
// Invariants: the bytes live in the database, so every instance serves
// them; a picture is stored once per content hash, shared by every item
// that uses it, and deleted when no item does; an item has at most
// MaxItemImages pictures; every change of an item's pictures is announced
// through catalog.Changed (its cached pages show them).
//
// Tests: imageproc_test.go here (internal); uploads over HTTP in
// handlers (images_test.go).
package media
