// Package media owns the items' pictures: processing an upload (decode,
// check, strip, re-encode at widths 320, 640 and 1280), storing the
// renditions in SQL by content hash, an item's ordered pictures, and
// serving one rendition.
//
// Processing is bounded in memory whatever the picture's shape: the
// memory it will need is worked out from the header (cost.go) and
// reserved from the process's MemoryBudget (budget.go), which every
// upload in the process shares; a picture needing more than the whole
// budget is refused before any pixel is decoded. PNGs are read a row at a
// time (pngrows.go), the scaler reads its source's rows once, top to
// bottom, keeping a few (scale.go), and the narrower renditions are made
// in steps from the wider ones. Work stops at the request's deadline,
// between rows.
//
// Tables: images, image_renditions, item_images. No Redis keys.
//
// Invariants: the bytes live in the database, so every instance serves
// them; a picture is stored once per content hash, shared by every item
// that uses it, and deleted when no item does; an item has at most
// MaxItemImages pictures; every change of an item's pictures is announced
// through catalog.Changed (its cached pages show them); the pictures
// being processed at once never reserve more than ImageMemoryBudget.
//
// Tests: imageproc_test.go (decoding, scaling, the budget, deadlines)
// and memory_test.go (peak memory of the hostile shapes in
// hostile_test.go) here; uploads and serving over HTTP in handlers
// (images_test.go).
package media
