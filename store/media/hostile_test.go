package media

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
)

// The hostile shapes: uploads within every limit of size and pixel count
// built to cost the most memory to process (tall strips, 16-bit and
// interlaced PNGs, progressive JPEGs, a big GIF, lossless WebP). They are
// generated a row at a time, so making one never holds its pixels.

// hostileShape is one upload and whether it is processed or refused.
type hostileShape struct {
	name    string
	make    func() []byte
	refused error // nil: it must be processed
	quick   bool  // made and processed in well under a second
}

func hostileShapes() []hostileShape {
	return []hostileShape{
		{"PNG 2441x16384 RGB", func() []byte { return testPNG(2441, 16384, 8, pngRGB, false, gradient) }, nil, false},
		{"JPEG 2441x16384 baseline", func() []byte { return testJPEG(2441, 16384) }, nil, false},
		{"JPEG 7744x5164 progressive 4:2:0", func() []byte { return progressiveJPEG(7744, 5164, 2) }, nil, false},
		{"JPEG 2441x16384 progressive 4:2:0", func() []byte { return progressiveJPEG(2441, 16384, 2) }, nil, false},
		{"JPEG 7744x5164 progressive 4:4:4", func() []byte { return progressiveJPEG(7744, 5164, 1) }, ErrImageHeavy, true},
		{"PNG 7744x5164 RGBA 16-bit interlaced", func() []byte { return testPNG(7744, 5164, 16, pngRGBA, true, pattern) }, nil, false},
		{"PNG 7744x5164 RGBA 16-bit interlaced, damaged late", func() []byte {
			return damagedLate(testPNG(7744, 5164, 16, pngRGBA, true, pattern))
		}, ErrImageDamaged, false},
		{"PNG 2441x16384 RGBA 16-bit", func() []byte { return testPNG(2441, 16384, 16, pngRGBA, false, pattern) }, nil, false},
		{"PNG 1280x16384 RGBA interlaced", func() []byte { return testPNG(1280, 16384, 8, pngRGBA, true, pattern) }, nil, false},
		{"PNG 1x16384 strip", func() []byte { return testPNG(1, 16384, 8, pngRGB, false, gradient) }, nil, true},
		{"GIF 2441x16384", func() []byte { return testGIF(2441, 16384) }, nil, false},
		{"WebP lossless 2441x16383", func() []byte { return losslessWebP(2441, 16383) }, nil, false},
	}
}

// gradient changes along x and every 64 rows, so rows repeat and the
// file stays small for its size, as a bomb-like upload would.
func gradient(x, y int) [4]uint16 {
	return [4]uint16{uint16(x * 251), uint16(y / 64 * 97), 0x7000, 0xffff}
}

// pattern repeats every 32 pixels and rows, with some transparency.
func pattern(x, y int) [4]uint16 {
	return [4]uint16{uint16(x % 32 * 2000), uint16(y % 32 * 2000), uint16((x + y) % 32 * 1000), uint16(0xc000 + x%32*500)}
}

// testPNG writes a w x h PNG of the colour type and bit depth,
// Adam7-interlaced if asked, streaming its rows through zlib unfiltered.
// px gives 16-bit samples.
func testPNG(w, h, depth, ctype int, interlaced bool, px func(x, y int) [4]uint16) []byte {
	return pngSpec{w: w, h: h, depth: depth, ctype: ctype, interlaced: interlaced}.encode(px)
}

// pngSpec says how to write a test PNG: filtered rows take each of the
// five filters in turn; transKey adds a tRNS chunk making the colour of
// the first pixel transparent (grey and RGB pictures); a paletted
// picture has 32 colours (fewer at depths below 5), the first two
// partly transparent.
type pngSpec struct {
	w, h, depth, ctype   int
	interlaced, filtered bool
	transKey             bool
}

func (s pngSpec) encode(px func(x, y int) [4]uint16) []byte {
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(s.w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(s.h))
	ihdr[8], ihdr[9] = byte(s.depth), byte(s.ctype)
	if s.interlaced {
		ihdr[12] = 1
	}
	writeChunk(&out, "IHDR", ihdr)
	// sample scales a 16-bit value to the picture's depth.
	sample := func(v uint16) uint16 { return v >> (16 - s.depth) }
	index := func(v [4]uint16) uint16 { return (v[0] >> 8) % 32 % (1 << s.depth) }
	if s.ctype == pngPaletted {
		var plte []byte
		for i := range min(32, 1<<s.depth) {
			plte = append(plte, byte(i*8), byte(255-i*8), byte(i*5))
		}
		writeChunk(&out, "PLTE", plte)
		writeChunk(&out, "tRNS", []byte{0, 128})
	}
	if s.transKey {
		key := px(0, 0)
		var trns []byte
		for _, v := range key[:map[int]int{pngGray: 1, pngRGB: 3}[s.ctype]] {
			trns = binary.BigEndian.AppendUint16(trns, sample(v))
		}
		writeChunk(&out, "tRNS", trns)
	}
	var idat bytes.Buffer
	z, _ := zlib.NewWriterLevel(&idat, zlib.BestSpeed)
	channels := map[int]int{pngGray: 1, pngRGB: 3, pngPaletted: 1, pngGrayAlpha: 2, pngRGBA: 4}[s.ctype]
	bpp := max(1, channels*s.depth/8)
	passes := []adam7Pass{{0, 0, 1, 1}}
	if s.interlaced {
		passes = adam7
	}
	for _, p := range passes {
		pw, ph := p.size(s.w, s.h)
		if pw == 0 || ph == 0 {
			continue
		}
		n := (pw*channels*s.depth + 7) / 8
		raw, prev, row := make([]byte, n), make([]byte, n), make([]byte, 1+n)
		for py := range ph {
			y := p.y + py*p.dy
			clear(raw)
			bit := 0
			for px0 := range pw {
				v := px(p.x+px0*p.dx, y)
				var samples []uint16
				switch s.ctype {
				case pngGray:
					samples = v[:1]
				case pngGrayAlpha:
					samples = []uint16{v[0], v[3]}
				case pngRGB:
					samples = v[:3]
				case pngRGBA:
					samples = v[:]
				case pngPaletted:
					samples = []uint16{index(v) << (16 - s.depth)}
				}
				for _, sv := range samples {
					switch s.depth {
					case 16:
						binary.BigEndian.PutUint16(raw[bit/8:], sv)
					case 8:
						raw[bit/8] = byte(sv >> 8)
					default:
						raw[bit/8] |= byte(sample(sv) << (8 - s.depth - bit%8))
					}
					bit += s.depth
				}
			}
			filter := byte(0)
			if s.filtered {
				filter = byte(py % 5)
			}
			row[0] = filter
			for i := range raw {
				var a, c int
				if i >= bpp {
					a, c = int(raw[i-bpp]), int(prev[i-bpp])
				}
				b := int(prev[i])
				switch filter {
				case 0:
					row[1+i] = raw[i]
				case 1:
					row[1+i] = raw[i] - byte(a)
				case 2:
					row[1+i] = raw[i] - byte(b)
				case 3:
					row[1+i] = raw[i] - byte((a+b)/2)
				case 4:
					row[1+i] = raw[i] - paeth(a, b, c)
				}
			}
			z.Write(row)
			raw, prev = prev, raw
		}
	}
	z.Close()
	writeChunk(&out, "IDAT", idat.Bytes())
	writeChunk(&out, "IEND", nil)
	return out.Bytes()
}

// damagedLate spoils a PNG's compressed pixels three quarters of the
// way through, keeping its chunks intact: the damage is found only after
// most of the work.
func damagedLate(data []byte) []byte {
	idat := bytes.Index(data, []byte("IDAT"))
	n := int(binary.BigEndian.Uint32(data[idat-4:]))
	for i := range 64 {
		data[idat+4+n*3/4+i] ^= 0x55
	}
	fixCRC(data, idat)
	return data
}

func writeChunk(w *bytes.Buffer, typ string, data []byte) {
	binary.Write(w, binary.BigEndian, uint32(len(data)))
	w.WriteString(typ)
	w.Write(data)
	binary.Write(w, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
}

// procedural is an opaque picture computed per pixel: encoders read it
// without its pixels ever being held.
type procedural struct{ w, h int }

func (p procedural) ColorModel() color.Model { return color.RGBAModel }
func (p procedural) Bounds() image.Rectangle { return image.Rect(0, 0, p.w, p.h) }
func (p procedural) At(x, y int) color.Color {
	return color.RGBA{uint8(x * 255 / p.w), uint8(y * 255 / p.h), uint8((x ^ y) & 0x3f), 255}
}

// testJPEG is a w x h baseline JPEG (4:2:0, as Go writes them).
func testJPEG(w, h int) []byte {
	var buf bytes.Buffer
	jpeg.Encode(&buf, procedural{w, h}, &jpeg.Options{Quality: 80})
	return buf.Bytes()
}

// progressiveJPEG is a w x h progressive JPEG of three components, luma
// sampled sub times as often as chroma each way (2: 4:2:0, 1: 4:4:4),
// carrying only its first (DC) scan: a decoder must still keep every
// block's coefficients for the scans that could follow, which is what
// makes progressive JPEGs costly.
func progressiveJPEG(w, h, sub int) []byte {
	var b bytes.Buffer
	seg := func(marker byte, data []byte) {
		b.Write([]byte{0xFF, marker})
		binary.Write(&b, binary.BigEndian, uint16(len(data)+2))
		b.Write(data)
	}
	b.Write([]byte{0xFF, 0xD8})
	seg(0xDB, append([]byte{0}, bytes.Repeat([]byte{1}, 64)...))
	sof := []byte{8, byte(h >> 8), byte(h), byte(w >> 8), byte(w), 3, 1, byte(sub<<4 | sub), 0, 2, 0x11, 0, 3, 0x11, 0}
	seg(0xC2, sof)
	// One DC table with one code, "0", for difference category 0.
	dht := append([]byte{0x00, 1}, make([]byte, 15)...)
	seg(0xC4, append(dht, 0))
	seg(0xDA, []byte{3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 0, 0})
	mcus := ((w + 8*sub - 1) / (8 * sub)) * ((h + 8*sub - 1) / (8 * sub))
	bits := mcus * (sub*sub + 2)
	b.Write(make([]byte, bits/8))
	if bits%8 != 0 {
		b.WriteByte(0xFF >> (bits % 8)) // padded with ones
	}
	b.Write([]byte{0xFF, 0xD9})
	return b.Bytes()
}

// testGIF is a w x h GIF of 32 colours.
func testGIF(w, h int) []byte {
	pal := make(color.Palette, 32)
	for i := range pal {
		pal[i] = color.RGBA{uint8(i * 8), uint8(255 - i*8), uint8(i * 5), 255}
	}
	img := image.NewPaletted(image.Rect(0, 0, w, h), pal)
	for y := range h {
		row := img.Pix[y*img.Stride : y*img.Stride+w]
		for x := range row {
			row[x] = uint8((x/64 + y/64) % 32)
		}
	}
	var buf bytes.Buffer
	gif.Encode(&buf, img, &gif.Options{NumColors: 32})
	return buf.Bytes()
}

// bitWriter packs bits least significant first, as VP8L reads them.
type bitWriter struct {
	buf   []byte
	acc   uint64
	nbits uint
}

func (b *bitWriter) put(v uint64, n uint) {
	b.acc |= v << b.nbits
	b.nbits += n
	for b.nbits >= 8 {
		b.buf = append(b.buf, byte(b.acc))
		b.acc >>= 8
		b.nbits -= 8
	}
}

func (b *bitWriter) bytes() []byte {
	if b.nbits > 0 {
		b.buf = append(b.buf, byte(b.acc))
	}
	return b.buf
}

// losslessWebP is a w x h lossless WebP whose 16-colour palette makes the
// decoder hold a packed copy beside the full picture (its worst case).
// Every prefix code has one symbol, so the pixels take no bits at all.
func losslessWebP(w, h int) []byte {
	var bw bitWriter
	bw.put(0x2f, 8)
	bw.put(uint64(w-1), 14)
	bw.put(uint64(h-1), 14)
	bw.put(1, 1) // uses alpha
	bw.put(0, 3) // version
	oneSymbolCodes := func() {
		for _, sym := range []uint64{7, 200, 40, 255} { // green (the index), red, blue, alpha
			bw.put(1, 1) // simple code
			bw.put(0, 1) // one symbol
			bw.put(1, 1) // of 8 bits
			bw.put(sym, 8)
		}
		bw.put(1, 1) // distance: simple code, one symbol of 1 bit: 0
		bw.put(0, 1)
		bw.put(0, 1)
		bw.put(0, 1)
	}
	bw.put(1, 1)  // a transform follows
	bw.put(3, 2)  // colour indexing
	bw.put(15, 8) // of 16 colours
	bw.put(0, 1)  // the palette: no colour cache
	oneSymbolCodes()
	bw.put(0, 1) // no more transforms
	bw.put(0, 1) // the picture: no colour cache
	bw.put(0, 1) // one set of prefix codes
	oneSymbolCodes()
	payload := bw.bytes()
	if len(payload)%2 == 1 {
		payload = append(payload, 0)
	}
	var b bytes.Buffer
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+len(payload)))
	b.WriteString("WEBPVP8L")
	binary.Write(&b, binary.LittleEndian, uint32(len(payload)))
	b.Write(payload)
	return b.Bytes()
}
