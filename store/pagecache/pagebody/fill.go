package pagebody

import (
	"compress/flate"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
)

// Fill is one hole's markup for a visitor, with what a response needs of
// it worked out once: its DEFLATE form, its CRC and its digest. A fill
// that is remembered and shown again (the same header for every response
// of one shopper, say) costs no compression, checksum or hashing per
// response: assembling the gzip body is then copying bytes.
type Fill struct {
	HTML []byte
	comp []byte // raw DEFLATE ending on a byte boundary (sync flush or stored blocks)
	crc  uint32
	// shift is x^(8*len(HTML)) mod the CRC polynomial, as in segment.
	shift uint32
	sum   [sha256.Size]byte
}

// Fill compression: FillCompressed for fills that are remembered and
// reused (compressed once, smaller on the wire for every response that
// shows them), FillPlain for one-off fills (stored blocks up to
// storedFragmentMax, the fastest level above).
const (
	FillCompressed = flate.DefaultCompression
	FillPlain      = flate.NoCompression
)

// NewFill prepares html as a hole's fill (FillCompressed or FillPlain).
// The fill keeps html: it must not change afterwards.
func NewFill(html []byte, level int) *Fill {
	f := &Fill{HTML: html, crc: crc32.ChecksumIEEE(html), shift: crcShift(int64(len(html))), sum: sha256.Sum256(html)}
	switch {
	case len(html) == 0:
	case level == FillCompressed:
		// Whichever is smaller: a short fragment's Huffman tables can cost
		// more than they save.
		f.comp = deflateSync(html, flate.DefaultCompression)
		if len(f.comp) > len(html)+5 {
			f.comp = appendStored(nil, html)
		}
	case len(html) > storedFragmentMax:
		f.comp = deflateSync(html, flate.BestSpeed)
	default:
		f.comp = appendStored(nil, html)
	}
	return f
}

// Fills are a response's fills, one per hole in the page's order
// (Page.HoleCount, Page.HoleName); a nil entry keeps the hole's anonymous
// default.
type Fills []*Fill

// HoleCount is how many holes the page has.
func (p *Page) HoleCount() int { return len(p.holeIdx) }

// HoleName is the name of the page's i-th hole.
func (p *Page) HoleName(i int) string { return p.segs[p.holeIdx[i]].Hole }

// indexHoles records where the holes are among the segments.
func (p *Page) indexHoles() {
	p.holeIdx = p.holeIdx[:0]
	for i, s := range p.segs {
		if s.Hole != "" {
			p.holeIdx = append(p.holeIdx, i)
		}
	}
}

// fillAt is the fill of segment i, or nil for fixed text and unfilled holes.
func (p *Page) fillAt(fills Fills, hole int) *Fill {
	if hole < len(fills) {
		return fills[hole]
	}
	return nil
}

// GzipFills appends the page to dst as one gzip member, with each hole
// filled from fills.
func (p *Page) GzipFills(dst []byte, fills Fills) []byte {
	dst = append(dst, gzipHeader...)
	var crc, size uint32
	hole := 0
	for _, s := range p.segs {
		comp, c, n, shift := s.Comp, s.CRC, s.Size, s.shift
		if s.Hole != "" {
			if f := p.fillAt(fills, hole); f != nil {
				comp, c, n, shift = f.comp, f.crc, uint32(len(f.HTML)), f.shift
			}
			hole++
		}
		dst = append(dst, comp...)
		crc = crc32CombineShift(crc, c, shift)
		size += n
	}
	dst = append(dst, finalBlock...)
	dst = binary.LittleEndian.AppendUint32(dst, crc)
	return binary.LittleEndian.AppendUint32(dst, size)
}

// ETagFills is a strong validator of the page with these fills: it changes
// when the page or any fill does.
func (p *Page) ETagFills(fills Fills) string {
	h := sha256.New()
	h.Write(p.Digest[:])
	for i := range p.holeIdx {
		if f := p.fillAt(fills, i); f != nil {
			h.Write([]byte(p.HoleName(i)))
			h.Write([]byte{1})
			h.Write(f.sum[:])
		}
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

// fillsOf turns hole name -> markup into Fills (one-off, plain fills).
func (p *Page) fillsOf(fill map[string][]byte) Fills {
	if len(fill) == 0 {
		return nil
	}
	out := make(Fills, len(p.holeIdx))
	for i := range out {
		if f, ok := fill[p.HoleName(i)]; ok && f != nil {
			out[i] = NewFill(f, FillPlain)
		}
	}
	return out
}
