package seed

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/png"
	"math"
)

// The demo pictures are flat vector drawings: each product type is a few
// parts (shapes given by signed distance, in a 640 x 640 canvas) painted
// in materials: the item's colour and its shades, steel, wood, paper and
// a few others. Rendered, every pixel is one material, or two at an edge
// mixed in quarters, so a picture has a small palette whose entries are
// material mixes; the same drawing in another colour is the same pixels
// with another palette. So each type is rendered and PNG-encoded once per
// size, and each colour only rewrites the PNG's palette chunk.

// material is what a part is painted in.
type material uint8

const (
	matBack       material = iota // the backdrop
	matShadow                     // the floor shadow
	matLine                       // outlines
	matPaint                      // the item's colour
	matPaintDark                  // its shadow side
	matPaintLight                 // its lit side
	matSteel
	matSteelDark
	matWood
	matWoodDark
	matPaper
	matInk
	matGlow // light from a lamp, a screen, a flame
	matGreen
	matRed
	numMaterials
)

// rgb is a colour in 0..255 floats, so mixes round once.
type rgb [3]float64

func (c rgb) mix(o rgb, t float64) rgb {
	return rgb{c[0] + (o[0]-c[0])*t, c[1] + (o[1]-c[1])*t, c[2] + (o[2]-c[2])*t}
}

func (c rgb) scale(f float64) rgb { return rgb{c[0] * f, c[1] * f, c[2] * f} }

func (c rgb) luma() float64 { return 0.299*c[0] + 0.587*c[1] + 0.114*c[2] } // Rec. 601 weights

// materialColours paints every material for an item of colour paint: the
// backdrop is the colour much lightened, or, for pale colours, a muted
// slate, so that the item always stands out from it.
func materialColours(paint rgb) [numMaterials]rgb {
	white := rgb{250, 248, 243}
	back := paint.mix(white, 0.84)
	if paint.luma() > 175 {
		back = paint.mix(rgb{96, 111, 128}, 0.42)
	}
	ink := rgb{46, 48, 56}
	return [numMaterials]rgb{
		matBack:       back,
		matShadow:     back.scale(0.86),
		matLine:       paint.scale(0.42).mix(ink, 0.5),
		matPaint:      paint,
		matPaintDark:  paint.scale(0.74),
		matPaintLight: paint.mix(white, 0.35),
		matSteel:      rgb{206, 211, 218},
		matSteelDark:  rgb{142, 149, 160},
		matWood:       rgb{190, 140, 92},
		matWoodDark:   rgb{136, 94, 58},
		matPaper:      rgb{250, 247, 238},
		matInk:        ink,
		matGlow:       rgb{255, 221, 128},
		matGreen:      rgb{96, 160, 84},
		matRed:        rgb{208, 72, 64},
	}
}

// pic is a drawing being made: parts painted in order, the later on top.
type pic struct {
	parts    []part
	noShadow bool // hangs on a wall: no floor shadow
}

type part struct {
	s       shape
	m       material
	outline bool
}

// add paints a part with an outline; fill paints one without (details,
// highlights).
func (p *pic) add(m material, s shape)  { p.parts = append(p.parts, part{s, m, true}) }
func (p *pic) fill(m material, s shape) { p.parts = append(p.parts, part{s, m, false}) }

// lineWidth is the outlines' width in canvas pixels.
const lineWidth = 5

// mixKey is a palette entry: material a, with b mixed in at q quarters.
type mixKey struct {
	a, b material
	q    uint8
}

// render draws p at size x size: each pixel's palette index, and the
// palette's material mixes in order of first use. A floor shadow is put
// under the drawing's parts unless it hangs.
func (p *pic) render(size int) ([]uint8, []mixKey) {
	parts := p.parts
	if !p.noShadow && len(parts) > 0 {
		b := parts[0].s
		for _, pt := range parts[1:] {
			b = union(b, pt.s)
		}
		cx, w := (b.x0+b.x1)/2, (b.x1-b.x0)/2
		parts = append([]part{{ellipse(cx, b.y1+2, w*0.92+10, 20), matShadow, false}}, parts...)
	}
	s := float64(size) / demoPictureSize
	margin := lineWidth + 2/s
	pix := make([]uint8, size*size)
	var index [numMaterials][numMaterials][3]int16 // a mix's palette index + 1
	var keys []mixKey
	// The picture is drawn in tiles. A part whose distance at a tile's
	// centre puts the whole tile outside it is skipped there, and one that
	// covers the whole tile hides the parts under it: only the parts with
	// an edge in the tile are worked out per pixel. (Every shape's
	// distance changes no faster than the point moves, so the centre's
	// tells for the whole tile.)
	const tile = 8
	half := tile * math.Sqrt2 / 2 / s
	aa := 0.5 / s
	var edges []part
	for ty := 0; ty < size; ty += tile {
		for tx := 0; tx < size; tx += tile {
			cx, cy := (float64(tx)+tile/2)/s, (float64(ty)+tile/2)/s
			base := matBack
			edges = edges[:0]
			for _, pt := range parts {
				if cx+half < pt.s.x0-margin || cx-half > pt.s.x1+margin || cy+half < pt.s.y0-margin || cy-half > pt.s.y1+margin {
					continue
				}
				d := pt.s.d(cx, cy)
				inset := 0.0
				if pt.outline {
					inset = lineWidth
				}
				switch {
				case d-half >= aa:
					continue
				case d+half+inset <= -aa:
					base, edges = pt.m, edges[:0]
				default:
					edges = append(edges, pt)
				}
			}
			for py := ty; py < min(ty+tile, size); py++ {
				y := (float64(py) + 0.5) / s
				for px := tx; px < min(tx+tile, size); px++ {
					x := (float64(px) + 0.5) / s
					w := mixture{n: 1}
					w.e[0] = mixEntry{base, 1}
					for _, pt := range edges {
						d := pt.s.d(x, y)
						if pt.outline {
							w.over(matLine, coverage(d, s))
							w.over(pt.m, coverage(d+lineWidth, s))
						} else {
							w.over(pt.m, coverage(d, s))
						}
					}
					k := w.dominant()
					slot := &index[k.a][k.b][k.q]
					if *slot == 0 {
						if len(keys) == 256 {
							k = mixKey{a: k.a, b: k.a}
							slot = &index[k.a][k.a][0]
						}
						if *slot == 0 {
							keys = append(keys, k)
							*slot = int16(len(keys))
						}
					}
					pix[py*size+px] = uint8(*slot - 1)
				}
			}
		}
	}
	return pix, keys
}

// coverage is how much of a pixel a distance d covers at scale s, with
// one pixel of anti-aliasing.
func coverage(d, s float64) float64 { return min(1, max(0, 0.5-d*s)) }

// mixture is how much of a pixel each material covers: the few a pixel
// touches (more than fit are dropped, the faintest first).
type mixture struct {
	n int
	e [6]mixEntry
}

type mixEntry struct {
	m material
	w float64
}

// over paints material m with coverage c over the mixture.
func (w *mixture) over(m material, c float64) {
	if c <= 0 {
		return
	}
	found := false
	for i := range w.e[:w.n] {
		w.e[i].w *= 1 - c
		if w.e[i].m == m {
			w.e[i].w += c
			found = true
		}
	}
	if found {
		return
	}
	if w.n == len(w.e) {
		faintest := 0
		for i := range w.e {
			if w.e[i].w < w.e[faintest].w {
				faintest = i
			}
		}
		w.e[faintest] = mixEntry{m, c}
		return
	}
	w.e[w.n] = mixEntry{m, c}
	w.n++
}

// dominant reduces a mixture to its two largest materials, the second in
// quarters (0, 1 or 2).
func (w *mixture) dominant() mixKey {
	e := w.e[:w.n]
	a, b := 0, -1
	for i := 1; i < len(e); i++ {
		switch {
		case e[i].w > e[a].w:
			a, b = i, a
		case b < 0 || e[i].w > e[b].w:
			b = i
		}
	}
	if b < 0 {
		return mixKey{a: e[a].m, b: e[a].m}
	}
	q := uint8(math.Round(4 * e[b].w / (e[a].w + e[b].w)))
	if q == 0 {
		return mixKey{a: e[a].m, b: e[a].m}
	}
	return mixKey{a: e[a].m, b: e[b].m, q: q}
}

// palette paints the mixes in an item's colour.
func palette(keys []mixKey, paint rgb) color.Palette {
	cols := materialColours(paint)
	pal := make(color.Palette, len(keys))
	for i, k := range keys {
		c := cols[k.a].mix(cols[k.b], float64(k.q)/4)
		pal[i] = color.RGBA{uint8(c[0] + 0.5), uint8(c[1] + 0.5), uint8(c[2] + 0.5), 255}
	}
	return pal
}

// encodePaletted encodes a size x size picture of palette indices.
func encodePaletted(pix []uint8, size int, pal color.Palette) ([]byte, error) {
	img := &image.Paletted{Pix: pix, Stride: size, Rect: image.Rect(0, 0, size, size), Palette: pal}
	var buf bytes.Buffer
	err := (&png.Encoder{CompressionLevel: png.DefaultCompression}).Encode(&buf, img)
	return buf.Bytes(), err
}

// withPalette is a copy of a paletted PNG with its PLTE chunk's colours
// replaced (as many as it had).
func withPalette(data []byte, pal color.Palette) ([]byte, error) {
	at := bytes.Index(data, []byte("PLTE"))
	if at < 4 {
		return nil, errors.New("no palette")
	}
	n := int(binary.BigEndian.Uint32(data[at-4:]))
	if n != 3*len(pal) || at+8+n > len(data) {
		return nil, errors.New("palette size differs")
	}
	out := bytes.Clone(data)
	for i, c := range pal {
		r, g, b, _ := c.RGBA()
		out[at+4+3*i], out[at+5+3*i], out[at+6+3*i] = byte(r>>8), byte(g>>8), byte(b>>8)
	}
	binary.BigEndian.PutUint32(out[at+4+n:], crc32.ChecksumIEEE(out[at:at+4+n]))
	return out, nil
}
