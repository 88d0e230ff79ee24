// Package pagebody is the body of a cached page, with no storage in it: an
// item page rendered once for an anonymous visitor, split at its holes,
// compressed, serialised, and sent as one gzip member with each visitor's
// fragments in the holes.
//
// A cached page is stored compressed, split at its holes.
//
// Views mark every per-visitor part of a page (the header's account area,
// the flash, the recently viewed list, ...) with <!--hole:NAME--> and
// <!--/hole:NAME-->. The page is rendered once for an anonymous visitor and
// cut at those marks into segments: the fixed text between holes, and each
// hole's anonymous content as its default. Every segment is compressed on
// its own into raw DEFLATE ending with a sync flush, so it ends on a byte
// boundary without a final block.
//
// A response is then one ordinary gzip member: the 10-byte header, the
// stored segments copied as they are with freshly compressed fragments in
// the holes, an empty final block, and the CRC-32 and length of the whole,
// the CRC combined from the segments' stored CRCs without decompressing
// them. Independently compressed DEFLATE pieces may be concatenated as long
// as only the last block is final, so every gzip reader accepts the result
// (a single member, since some browsers stop reading after the first member
// of a multi-member stream). User content cannot forge a mark: templ
// escapes "<" in text and attributes.
//
// Tests: pagebody_internal_test.go here.
package pagebody
