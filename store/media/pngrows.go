package media

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"io"
)

// pngRows decodes a PNG a row at a time into premultiplied 8-bit RGBA
// (16-bit samples keep their high byte), so a picture of any size and
// depth costs a few rows of memory instead of up to eight bytes a pixel
// (image/png decodes the whole picture, 16-bit ones as RGBA64, and an
// interlaced one again pass by pass). An interlaced PNG cannot be read in
// rows, its passes each covering the whole picture, so pngPicture
// gathers it into one 8-bit picture instead.
type pngRows struct {
	w, h       int
	depth      int
	ctype      int
	interlaced bool
	palette    [256][4]byte // premultiplied; past PLTE, opaque black as image/png
	transKey   []byte       // tRNS of a grey or RGB picture: the transparent sample values
	z          io.ReadCloser
	cur, prev  []byte // the current and previous raw rows, filter byte first
	bpp        int    // bytes a pixel, at least 1, as the filters count
}

// adam7 are the interlaced passes: the first pixel and the steps.
var adam7 = []adam7Pass{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}

type adam7Pass struct{ x, y, dx, dy int }

// size is the pass's width and height in a w x h picture.
func (p adam7Pass) size(w, h int) (int, int) {
	return (w - p.x + p.dx - 1) / p.dx, (h - p.y + p.dy - 1) / p.dy
}

// newPNGRows checks every chunk's CRC, reads the header, palette and
// transparency, and opens the compressed pixel data.
func newPNGRows(data []byte) (*pngRows, error) {
	if len(data) < 8 || string(data[:8]) != "\x89PNG\r\n\x1a\n" {
		return nil, ErrImageFormat
	}
	p := &pngRows{}
	for i := range p.palette {
		p.palette[i] = [4]byte{0, 0, 0, 255}
	}
	var idat []io.Reader
	seenHeader := false
	for i := 8; ; {
		if i+12 > len(data) {
			return nil, ErrImageDamaged
		}
		n := int(binary.BigEndian.Uint32(data[i:]))
		if n < 0 || i+12+n > len(data) {
			return nil, ErrImageDamaged
		}
		typ, body := string(data[i+4:i+8]), data[i+8:i+8+n]
		if crc32.ChecksumIEEE(data[i+4:i+8+n]) != binary.BigEndian.Uint32(data[i+8+n:]) {
			return nil, ErrImageDamaged
		}
		i += 12 + n
		if !seenHeader && typ != "IHDR" {
			return nil, ErrImageDamaged
		}
		switch typ {
		case "IHDR":
			if seenHeader || p.header(body) != nil {
				return nil, ErrImageDamaged
			}
			seenHeader = true
		case "PLTE":
			if n%3 != 0 || n/3 > 256 || p.ctype == pngPaletted && n/3 > 1<<p.depth {
				return nil, ErrImageDamaged
			}
			for k := range n / 3 {
				p.palette[k] = [4]byte{body[3*k], body[3*k+1], body[3*k+2], 255}
			}
		case "tRNS":
			p.transparency(body)
		case "IDAT":
			idat = append(idat, bytes.NewReader(body))
		case "IEND":
			if len(idat) == 0 {
				return nil, ErrImageDamaged
			}
			z, err := zlib.NewReader(io.MultiReader(idat...))
			if err != nil {
				return nil, ErrImageDamaged
			}
			p.z = z
			return p, nil
		}
	}
}

// header reads IHDR and sizes the row buffers.
func (p *pngRows) header(b []byte) error {
	if len(b) != 13 || b[10] != 0 || b[11] != 0 || b[12] > 1 {
		return ErrImageDamaged
	}
	p.w, p.h = int(binary.BigEndian.Uint32(b)), int(binary.BigEndian.Uint32(b[4:]))
	p.depth, p.ctype, p.interlaced = int(b[8]), int(b[9]), b[12] == 1
	channels := map[int]int{pngGray: 1, pngRGB: 3, pngPaletted: 1, pngGrayAlpha: 2, pngRGBA: 4}[p.ctype]
	okDepth := map[int][]int{pngGray: {1, 2, 4, 8, 16}, pngRGB: {8, 16}, pngPaletted: {1, 2, 4, 8}, pngGrayAlpha: {8, 16}, pngRGBA: {8, 16}}[p.ctype]
	valid := false
	for _, d := range okDepth {
		valid = valid || d == p.depth
	}
	if !valid || p.w <= 0 || p.h <= 0 || p.w > MaxImageSide || p.h > MaxImageSide {
		return ErrImageDamaged
	}
	bits := channels * p.depth
	p.bpp = max(1, bits/8)
	p.cur = make([]byte, 1+(p.w*bits+7)/8)
	p.prev = make([]byte, len(p.cur))
	return nil
}

// transparency reads tRNS: alphas for the palette's first entries, or
// the one grey or RGB value that is transparent.
func (p *pngRows) transparency(b []byte) {
	switch p.ctype {
	case pngPaletted:
		for k, a := range b[:min(len(b), 256)] {
			c := p.palette[k]
			p.palette[k] = [4]byte{premultiply(c[0], a), premultiply(c[1], a), premultiply(c[2], a), a}
		}
	case pngGray, pngRGB:
		p.transKey = b
	}
}

// PNG colour types.
const (
	pngGray      = 0
	pngRGB       = 2
	pngPaletted  = 3
	pngGrayAlpha = 4
	pngRGBA      = 6
)

func (p *pngRows) size() (int, int) { return p.w, p.h }

// next decodes the next row of a non-interlaced PNG.
func (p *pngRows) next(row []byte) error {
	if err := p.readRow(cap(p.cur)); err != nil {
		return err
	}
	p.convert(row, 4, p.w)
	return nil
}

// readRow reads and unfilters the next n raw bytes (filter byte first)
// into p.cur; the previous row moves to p.prev.
func (p *pngRows) readRow(n int) error {
	p.cur, p.prev = p.prev[:n], p.cur[:n]
	if _, err := io.ReadFull(p.z, p.cur); err != nil {
		return ErrImageDamaged
	}
	cdat, pdat, bpp := p.cur[1:], p.prev[1:], p.bpp
	switch p.cur[0] {
	case 0:
	case 1: // sub
		for i := bpp; i < len(cdat); i++ {
			cdat[i] += cdat[i-bpp]
		}
	case 2: // up
		for i, v := range pdat {
			cdat[i] += v
		}
	case 3: // average
		for i := range min(bpp, len(cdat)) {
			cdat[i] += pdat[i] / 2
		}
		for i := bpp; i < len(cdat); i++ {
			cdat[i] += byte((int(cdat[i-bpp]) + int(pdat[i])) / 2)
		}
	case 4: // Paeth
		for i := range cdat {
			var a, c int
			if i >= bpp {
				a, c = int(cdat[i-bpp]), int(pdat[i-bpp])
			}
			cdat[i] += paeth(a, int(pdat[i]), c)
		}
	default:
		return ErrImageDamaged
	}
	return nil
}

func paeth(a, b, c int) byte {
	pa, pb, pc := abs(b-c), abs(a-c), abs(a+b-2*c)
	switch {
	case pa <= pb && pa <= pc:
		return byte(a)
	case pb <= pc:
		return byte(b)
	}
	return byte(c)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// convert writes the n pixels of the current row as premultiplied RGBA,
// one every step bytes of dst.
func (p *pngRows) convert(dst []byte, step, n int) {
	src := p.cur[1:]
	put := func(i int, r, g, b, a byte) {
		px := dst[i*step : i*step+4 : i*step+4]
		if a != 255 {
			r, g, b = premultiply(r, a), premultiply(g, a), premultiply(b, a)
		}
		px[0], px[1], px[2], px[3] = r, g, b, a
	}
	wide := p.depth == 16
	switch p.ctype {
	case pngGray, pngPaletted:
		for i := range n {
			var v int
			if wide {
				v = int(binary.BigEndian.Uint16(src[2*i:]))
			} else {
				bit := i * p.depth
				v = int(src[bit/8]>>(8-p.depth-bit%8)) & (1<<p.depth - 1)
			}
			if p.ctype == pngPaletted {
				c := p.palette[v&255]
				px := dst[i*step : i*step+4 : i*step+4]
				px[0], px[1], px[2], px[3] = c[0], c[1], c[2], c[3]
				continue
			}
			a := byte(255)
			if len(p.transKey) >= 2 && v == int(binary.BigEndian.Uint16(p.transKey)) {
				a = 0
			}
			g := byte(v >> 8)
			if !wide {
				g = byte(v * 255 / (1<<p.depth - 1))
			}
			put(i, g, g, g, a)
		}
	case pngRGB:
		for i := range n {
			a := byte(255)
			var r, g, b byte
			if wide {
				s := src[6*i : 6*i+6]
				r, g, b = s[0], s[2], s[4]
				if len(p.transKey) >= 6 && bytes.Equal(s, p.transKey[:6]) {
					a = 0
				}
			} else {
				s := src[3*i : 3*i+3]
				r, g, b = s[0], s[1], s[2]
				if k := p.transKey; len(k) >= 6 && k[0] == 0 && k[2] == 0 && k[4] == 0 && r == k[1] && g == k[3] && b == k[5] {
					a = 0
				}
			}
			put(i, r, g, b, a)
		}
	case pngGrayAlpha:
		for i := range n {
			if wide {
				put(i, src[4*i], src[4*i], src[4*i], src[4*i+2])
			} else {
				put(i, src[2*i], src[2*i], src[2*i], src[2*i+1])
			}
		}
	case pngRGBA:
		for i := range n {
			if wide {
				s := src[8*i : 8*i+8]
				put(i, s[0], s[2], s[4], s[6])
			} else {
				s := src[4*i : 4*i+4]
				put(i, s[0], s[1], s[2], s[3])
			}
		}
	}
}

// done checks that the pixel data ends where the picture does, with a
// good checksum.
func (p *pngRows) done() error {
	var one [1]byte
	if n, err := p.z.Read(one[:]); n != 0 || err != io.EOF {
		return ErrImageDamaged
	}
	return nil
}

// pngPicture decodes an interlaced PNG into one 8-bit picture, pass by
// pass, stopping when ctx ends.
func (p *pngRows) pngPicture(ctx context.Context) (*image.RGBA, error) {
	img := image.NewRGBA(image.Rect(0, 0, p.w, p.h))
	bits := map[int]int{pngGray: 1, pngRGB: 3, pngPaletted: 1, pngGrayAlpha: 2, pngRGBA: 4}[p.ctype] * p.depth
	for _, pass := range adam7 {
		pw, ph := pass.size(p.w, p.h)
		if pw == 0 || ph == 0 {
			continue
		}
		n := 1 + (pw*bits+7)/8
		clear(p.cur[:cap(p.cur)])
		clear(p.prev[:cap(p.prev)])
		for py := range ph {
			if py%16 == 0 {
				if err := ctx.Err(); err != nil {
					return nil, fmt.Errorf("decode picture: %w", err)
				}
			}
			if err := p.readRow(n); err != nil {
				return nil, err
			}
			y := pass.y + py*pass.dy
			p.convert(img.Pix[y*img.Stride+4*pass.x:], 4*pass.dx, pw)
		}
	}
	return img, p.done()
}
