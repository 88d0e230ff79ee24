package pagebody

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"strings"
	"sync"
)

// Hole marks, as views.Hole writes them.
const (
	holeOpen  = "<!--hole:"
	holeClose = "<!--/hole:"
	holeEnd   = "-->"
)

// pageMagic starts every stored page; a value without it is not ours.
const pageMagic = "SFPC2"

// Compression levels: stored pages get the default, per-request renders
// that are not stored the fastest.
const (
	LevelStored = flate.DefaultCompression
	LevelFast   = flate.BestSpeed
)

// gzipHeader is a gzip member header: no name, no mtime, unknown OS.
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}

// finalBlock is an empty final DEFLATE block with fixed codes.
var finalBlock = []byte{0x03, 0x00}

// segment is a piece of a page: fixed text (Hole == "") or a hole's default.
type segment struct {
	Hole string
	Comp []byte // raw DEFLATE ending with a sync flush; empty for empty text
	CRC  uint32
	Size uint32
	// shift is x^(8*Size) mod the CRC polynomial: the CRC of the text
	// before this segment, carried over it (computed once, not per response).
	shift uint32
}

// Page is one stored page: an item page rendered for an anonymous
// visitor, split at its holes.
type Page struct {
	ItemID   int64
	ItemName string
	// GenItem and GenAll are the purge generations read before the page's
	// data was: a page older than a purge is never served.
	GenItem, GenAll int64
	// Build is the build of the program that rendered the page, part of
	// its generation: a page another build rendered (older templates) is
	// never served.
	Build string
	// Digest is the SHA-256 of the anonymous page, the base of its ETag.
	Digest [32]byte
	segs   []segment
	// holeIdx are the indexes of the holes in segs.
	holeIdx []int
}

// Holes lists the page's holes in order.
func (p *Page) Holes() []string {
	out := make([]string, len(p.holeIdx))
	for i := range out {
		out[i] = p.HoleName(i)
	}
	return out
}

// Build splits an anonymous page at its holes and compresses it at level
// (LevelStored or LevelFast). genItem and genAll are the purge generations
// read before the page's data, build the build that renders it.
func Build(html []byte, itemID int64, name string, genItem, genAll int64, build string, level int) (*Page, error) {
	parts, err := splitHoles(html)
	if err != nil {
		return nil, err
	}
	p := &Page{ItemID: itemID, ItemName: name, GenItem: genItem, GenAll: genAll, Build: build, Digest: sha256.Sum256(html)}
	for _, part := range parts {
		p.segs = append(p.segs, segment{Hole: part.hole, Comp: deflateSync(part.text, level),
			CRC: crc32.ChecksumIEEE(part.text), Size: uint32(len(part.text)), shift: crcShift(int64(len(part.text)))})
	}
	p.indexHoles()
	return p, nil
}

type piece struct {
	hole string
	text []byte
}

// splitHoles cuts html into fixed text and holes. Holes do not nest.
func splitHoles(html []byte) ([]piece, error) {
	var out []piece
	rest := html
	for {
		i := bytes.Index(rest, []byte(holeOpen))
		if i < 0 {
			return append(out, piece{text: rest}), nil
		}
		j := bytes.Index(rest[i:], []byte(holeEnd))
		if j < 0 {
			return nil, errors.New("page: unterminated hole mark")
		}
		name := string(rest[i+len(holeOpen) : i+j])
		start := i + j + len(holeEnd)
		closing := []byte(holeClose + name + holeEnd)
		k := bytes.Index(rest[start:], closing)
		if k < 0 || name == "" || strings.ContainsAny(name, "<>-") {
			return nil, fmt.Errorf("page: hole %q is not closed", name)
		}
		// The marks stay in the fixed text, so every response keeps them.
		out = append(out, piece{text: rest[:start]}, piece{hole: name, text: rest[start : start+k]})
		rest = rest[start+k:]
	}
}

// flatePools keep compressors, which are large, for the two levels in use:
// stored pages get the default level, per-request fragments the fastest.
var flatePools = map[int]*sync.Pool{flate.DefaultCompression: {}, flate.BestSpeed: {}}

// Size is roughly the memory the page holds, for bounding caches of pages.
func (p *Page) Size() int {
	n := 128 + len(p.ItemName)
	for _, s := range p.segs {
		n += 48 + len(s.Hole) + len(s.Comp)
	}
	return n
}

// deflateSync compresses b into raw DEFLATE ending with a sync flush.
func deflateSync(b []byte, level int) []byte {
	if len(b) == 0 {
		return nil
	}
	pool := flatePools[level]
	if pool == nil {
		pool = flatePools[flate.DefaultCompression]
		level = flate.DefaultCompression
	}
	var buf bytes.Buffer
	buf.Grow(len(b)/3 + 64)
	w, _ := pool.Get().(*flate.Writer)
	if w == nil {
		w, _ = flate.NewWriter(&buf, level)
	} else {
		w.Reset(&buf)
	}
	_, _ = w.Write(b)
	_ = w.Flush()
	w.Reset(io.Discard)
	pool.Put(w)
	return buf.Bytes()
}

// storedFragmentMax is the largest fragment sent uncompressed, in stored
// DEFLATE blocks: building Huffman codes for a few hundred bytes costs more
// CPU than the bytes it saves.
const storedFragmentMax = 1024

// appendStored appends b as stored (uncompressed) DEFLATE blocks. They
// start and end on a byte boundary, like the sync-flushed segments.
func appendStored(dst, b []byte) []byte {
	for len(b) > 0 {
		n := min(len(b), 0xffff)
		dst = append(dst, 0, byte(n), byte(n>>8), ^byte(n), ^byte(n>>8))
		dst, b = append(dst, b[:n]...), b[n:]
	}
	return dst
}

// Gzip appends the page to dst as one gzip member, with each hole filled
// from fill (a nil or missing entry keeps the hole's anonymous default).
func (p *Page) Gzip(dst []byte, fill map[string][]byte) []byte {
	return p.GzipFills(dst, p.fillsOf(fill))
}

// HTML returns the page with its holes filled from fill, uncompressed.
func (p *Page) HTML(fill map[string][]byte) ([]byte, error) {
	return p.HTMLFills(p.fillsOf(fill))
}

// HTMLFills returns the page with its holes filled from fills, uncompressed.
func (p *Page) HTMLFills(fills Fills) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(p.GzipFills(nil, fills)))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// ETag is a strong validator of the page with these fills: it changes when
// the page or any per-visitor fragment does.
func (p *Page) ETag(fill map[string][]byte) string {
	return p.ETagFills(p.fillsOf(fill))
}

// Encode serialises the page for storage.
func (p *Page) Encode() []byte {
	size := len(pageMagic) + 64 + len(p.ItemName) + len(p.Build)
	for _, s := range p.segs {
		size += len(s.Hole) + len(s.Comp) + 20
	}
	b := make([]byte, 0, size)
	b = append(b, pageMagic...)
	b = binary.AppendVarint(b, p.ItemID)
	b = binary.AppendVarint(b, p.GenItem)
	b = binary.AppendVarint(b, p.GenAll)
	b = appendString(b, p.Build)
	b = append(b, p.Digest[:]...)
	b = appendString(b, p.ItemName)
	b = binary.AppendUvarint(b, uint64(len(p.segs)))
	for _, s := range p.segs {
		b = appendString(b, s.Hole)
		b = binary.LittleEndian.AppendUint32(b, s.CRC)
		b = binary.AppendUvarint(b, uint64(s.Size))
		b = appendString(b, string(s.Comp))
	}
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// ErrBadPage means a stored value is not a page this version wrote; it is
// treated as a miss and overwritten.
var ErrBadPage = errors.New("page cache: unreadable value")

// Decode reads a value that Encode wrote.
func Decode(b []byte) (*Page, error) {
	r := pageReader{b: b}
	if !bytes.HasPrefix(b, []byte(pageMagic)) {
		return nil, ErrBadPage
	}
	r.b = b[len(pageMagic):]
	p := &Page{ItemID: r.varint(), GenItem: r.varint(), GenAll: r.varint()}
	p.Build = string(r.str())
	copy(p.Digest[:], r.bytes(32))
	p.ItemName = string(r.str())
	n := r.uvarint()
	if n > 64 {
		return nil, ErrBadPage
	}
	for i := uint64(0); i < n && r.err == nil; i++ {
		s := segment{Hole: string(r.str())}
		if c := r.bytes(4); c != nil {
			s.CRC = binary.LittleEndian.Uint32(c)
		}
		s.Size = uint32(r.uvarint())
		s.shift = crcShift(int64(s.Size))
		s.Comp = r.str()
		p.segs = append(p.segs, s)
	}
	if r.err != nil || len(r.b) != 0 {
		return nil, ErrBadPage
	}
	p.indexHoles()
	return p, nil
}

// pageReader reads the encoded fields, remembering the first error.
type pageReader struct {
	b   []byte
	err error
}

func (r *pageReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = ErrBadPage
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *pageReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = ErrBadPage
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *pageReader) bytes(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.b) {
		r.err = ErrBadPage
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *pageReader) str() []byte { return r.bytes(int(r.uvarint())) }
