package media

import (
	"context"
	"fmt"
	"image"
	"math"
)

// scaleRows fills dst with src resampled to dst's size, reading src's
// rows once, top to bottom, so that the source never has to be held
// whole: each row is first scaled across into a small ring of rows, and
// each destination row is made from the ring as soon as the last source
// row it needs has arrived. The filter is Catmull-Rom, widened by the
// scale when shrinking so that every source pixel counts (no aliasing);
// the arithmetic is on premultiplied 8-bit RGBA in float32. It stops
// when ctx ends, checking between rows, and reports whether every source
// pixel was opaque.
func scaleRows(ctx context.Context, src rowSource, dst *image.RGBA) (opaque bool, err error) {
	sw, sh := src.size()
	dw, dh := dst.Rect.Dx(), dst.Rect.Dy()
	across, down := newTaps(sw, dw), newTaps(sh, dh)
	ring := make([][]float32, down.n)
	for i := range ring {
		ring[i] = make([]float32, 4*dw)
	}
	row := make([]byte, 4*sw)
	acc := make([]float32, 4*dw)
	opaque = true
	next := 0 // the next destination row
	for y := range sh {
		if y%16 == 0 {
			if err := ctx.Err(); err != nil {
				return false, fmt.Errorf("scale picture: %w", err)
			}
		}
		if err := src.next(row); err != nil {
			return false, err
		}
		if opaque {
			opaque = rowOpaque(row)
		}
		across.apply(ring[y%down.n], row)
		for next < dh && int(down.start[next])+down.n-1 <= y {
			clear(acc)
			first, wts := int(down.start[next]), down.weights(next)
			for k, wt := range wts {
				if wt == 0 {
					continue
				}
				r := ring[(first+k)%down.n]
				for i := range acc {
					acc[i] += wt * r[i]
				}
			}
			storeRow(dst.Pix[next*dst.Stride:next*dst.Stride+4*dw], acc)
			next++
		}
	}
	return opaque, nil
}

// taps are the weights of a one-dimensional resampling from sn to dn
// samples: output i is the sum over k < n of w[i*n+k] times input
// start[i]+k.
type taps struct {
	n     int
	start []int32
	w     []float32
}

func (t *taps) weights(i int) []float32 { return t.w[i*t.n : (i+1)*t.n] }

// newTaps computes Catmull-Rom weights from sn samples to dn <= sn. At
// the same size every output is its input. Near the edges the taps that
// fall outside repeat the edge sample.
func newTaps(sn, dn int) taps {
	if sn == dn {
		t := taps{n: 1, start: make([]int32, dn), w: make([]float32, dn)}
		for i := range dn {
			t.start[i], t.w[i] = int32(i), 1
		}
		return t
	}
	scale := float64(sn) / float64(dn)
	support := 2 * max(scale, 1)
	n := min(int(2*support)+2, sn)
	t := taps{n: n, start: make([]int32, dn), w: make([]float32, dn*n)}
	wts := make([]float64, n)
	for i := range dn {
		centre := (float64(i)+0.5)*scale - 0.5
		lo := int(math.Floor(centre-support)) + 1
		hi := int(math.Floor(centre + support))
		start := min(max(lo, 0), sn-n)
		clear(wts)
		var sum float64
		for j := lo; j <= hi; j++ {
			wt := catmullRom((float64(j) - centre) / max(scale, 1))
			wts[min(max(j, 0), sn-1)-start] += wt
			sum += wt
		}
		t.start[i] = int32(start)
		for k, wt := range wts {
			t.w[i*n+k] = float32(wt / sum)
		}
	}
	return t
}

func catmullRom(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x < 1:
		return (1.5*x-2.5)*x*x + 1
	case x < 2:
		return ((-0.5*x+2.5)*x-4)*x + 2
	}
	return 0
}

// apply scales one row of premultiplied RGBA across into out (4 floats a
// pixel).
func (t *taps) apply(out []float32, row []byte) {
	for i := range len(out) / 4 {
		var r, g, b, a float32
		p := 4 * int(t.start[i])
		for _, wt := range t.w[i*t.n : (i+1)*t.n] {
			px := row[p : p+4 : p+4]
			r += wt * float32(px[0])
			g += wt * float32(px[1])
			b += wt * float32(px[2])
			a += wt * float32(px[3])
			p += 4
		}
		o := out[4*i : 4*i+4 : 4*i+4]
		o[0], o[1], o[2], o[3] = r, g, b, a
	}
}

// storeRow rounds a scaled row into pixels: each sample into 0..255 and
// no colour above its alpha (the filter's negative lobes can overshoot).
func storeRow(dst []byte, acc []float32) {
	for i := 0; i+3 < len(acc); i += 4 {
		a := clampByte(acc[i+3])
		dst[i+3] = a
		dst[i] = min(clampByte(acc[i]), a)
		dst[i+1] = min(clampByte(acc[i+1]), a)
		dst[i+2] = min(clampByte(acc[i+2]), a)
	}
}

func clampByte(v float32) byte {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return byte(v + 0.5)
}

// rowOpaque reports whether every pixel of a row of RGBA is opaque.
func rowOpaque(row []byte) bool {
	for i := 3; i < len(row); i += 4 {
		if row[i] != 255 {
			return false
		}
	}
	return true
}
