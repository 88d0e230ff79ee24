package media

import (
	"image"
	"image/color"
	"image/draw"
)

// rowSource gives a picture's rows top to bottom as premultiplied 8-bit
// RGBA, so the scaler needs no more of it than a row at a time.
type rowSource interface {
	size() (w, h int)
	// next fills row (4 bytes a pixel) with the next row.
	next(row []byte) error
	// done is called after the last row: it reports damage found only
	// at the end.
	done() error
}

// imageRows reads the rows of a decoded picture.
type imageRows struct {
	img     image.Image
	y       int
	palette [][4]byte // premultiplied, for a paletted picture
}

func newImageRows(img image.Image) *imageRows {
	r := &imageRows{img: img}
	if p, ok := img.(*image.Paletted); ok {
		r.palette = make([][4]byte, 256) // indices past the palette are transparent black
		for i, c := range p.Palette {
			if i < len(r.palette) {
				pc := color.RGBAModel.Convert(c).(color.RGBA)
				r.palette[i] = [4]byte{pc.R, pc.G, pc.B, pc.A}
			}
		}
	}
	return r
}

func (r *imageRows) size() (int, int) {
	b := r.img.Bounds()
	return b.Dx(), b.Dy()
}

func (r *imageRows) done() error { return nil }

func (r *imageRows) next(row []byte) error {
	b := r.img.Bounds()
	y := b.Min.Y + r.y
	r.y++
	switch m := r.img.(type) {
	case *image.RGBA:
		o := m.PixOffset(b.Min.X, y)
		copy(row, m.Pix[o:o+4*b.Dx()])
	case *image.Paletted:
		o := m.PixOffset(b.Min.X, y)
		for x, idx := range m.Pix[o : o+b.Dx()] {
			copy(row[4*x:4*x+4], r.palette[idx][:])
		}
	case *image.NYCbCrA:
		drawRow(row, b, &m.YCbCr, y)
		o := m.AOffset(b.Min.X, y)
		for x, a := range m.A[o : o+b.Dx()] {
			px := row[4*x : 4*x+4 : 4*x+4]
			px[0], px[1], px[2], px[3] = premultiply(px[0], a), premultiply(px[1], a), premultiply(px[2], a), a
		}
	default:
		// image/draw converts YCbCr, Gray, CMYK and NRGBA rows directly.
		drawRow(row, b, m, y)
	}
	return nil
}

// drawRow converts row y of src (bounds b) into premultiplied RGBA.
func drawRow(row []byte, b image.Rectangle, src image.Image, y int) {
	dst := &image.RGBA{Pix: row, Stride: len(row), Rect: image.Rect(0, 0, b.Dx(), 1)}
	draw.Draw(dst, dst.Rect, src, image.Pt(b.Min.X, y), draw.Src)
}

// premultiply scales a colour sample by an alpha, rounding.
func premultiply(c, a byte) byte { return byte((uint32(c)*uint32(a) + 127) / 255) }
