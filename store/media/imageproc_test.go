package media

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"testing"
	"time"
)

func smallPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 700, 400))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestProcessImageWaitsForMemory: while the budget is all taken, an
// upload waits (half the time its request has left) and is then refused
// as busy, with a time to try again, without decoding anything; once the
// memory is given back it goes through.
func TestProcessImageWaitsForMemory(t *testing.T) {
	data := smallPNG(t)
	budget := NewMemoryBudget(64 << 20)
	release, err := budget.Reserve(t.Context(), budget.size)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	_, err = processImage(ctx, budget, data, DefaultMaxImageBytes)
	cancel()
	var load *LoadError
	if !errors.Is(err, ErrImageBusy) || !errors.As(err, &load) || load.RetryAfter < time.Second {
		release()
		t.Fatalf("with the budget taken: %v, want ErrImageBusy with a RetryAfter", err)
	}
	release()
	img, err := processImage(t.Context(), budget, data, DefaultMaxImageBytes)
	if err != nil || len(img.Renditions) != 3 {
		t.Fatalf("after the memory was given back: %d renditions, %v", len(img.Renditions), err)
	}
}

// TestMemoryBudgetConcurrent: many pictures reserving at once never hold
// more than the budget together, and every one gets its turn.
func TestMemoryBudgetConcurrent(t *testing.T) {
	budget := NewMemoryBudget(100)
	var held, peak int64
	mu := make(chan struct{}, 1)
	errs := make(chan error, 50)
	for i := range 50 {
		go func() {
			n := int64(10 + i%5*20)
			release, err := budget.Reserve(t.Context(), n)
			if err != nil {
				errs <- err
				return
			}
			n = min(max(n, budget.minShare), budget.size)
			mu <- struct{}{}
			held += n
			peak = max(peak, held)
			<-mu
			time.Sleep(time.Millisecond)
			mu <- struct{}{}
			held -= n
			<-mu
			release()
			release() // twice is harmless
			errs <- nil
		}()
	}
	for range 50 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if peak > budget.size || peak == 0 {
		t.Fatalf("%d bytes held at once, budget %d", peak, budget.size)
	}
}

// TestProcessImageStopsWhenTheRequestEnds: a request that has ended gets
// no renditions made for it.
func TestProcessImageStopsWhenTheRequestEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := processImage(ctx, NewMemoryBudget(ImageMemoryBudget), smallPNG(t), DefaultMaxImageBytes); err == nil {
		t.Fatal("a cancelled request's picture was processed")
	}
}

// countingRows is a uniform picture that ends its context after a given
// number of rows and counts the rows read.
type countingRows struct {
	w, h, read, cancelAt int
	cancel               func()
}

func (c *countingRows) size() (int, int) { return c.w, c.h }
func (c *countingRows) done() error      { return nil }
func (c *countingRows) next(row []byte) error {
	c.read++
	if c.read == c.cancelAt {
		c.cancel()
	}
	for i := range row {
		row[i] = 200
	}
	return nil
}

// TestScalingStopsBetweenRows: when the request ends in the middle of a
// picture, the scaling stops within a few rows instead of finishing the
// picture, and processing answers ErrImageTimeout.
func TestScalingStopsBetweenRows(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	src := &countingRows{w: 2000, h: 10_000, cancelAt: 100, cancel: cancel}
	_, err := scaleRows(ctx, src, image.NewRGBA(image.Rect(0, 0, 1280, 6400)))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("scaling after the request ended: %v", err)
	}
	if src.read > src.cancelAt+16 {
		t.Errorf("%d rows read after the request ended", src.read-src.cancelAt)
	}
	// Through processImage: a request whose deadline passes while the
	// picture is scaled is a timeout, with a time to try again.
	data := testPNG(1300, 2000, 8, pngRGB, false, gradient)
	_, err = processImage(&endsDuring{Context: t.Context()}, NewMemoryBudget(ImageMemoryBudget), data, DefaultMaxImageBytes)
	var load *LoadError
	if !errors.Is(err, ErrImageTimeout) || !errors.As(err, &load) || load.RetryAfter < time.Second {
		t.Fatalf("processing past the deadline: %v", err)
	}
}

// endsDuring is a context whose Err starts reporting the deadline from
// its third call: the work begins, and its deadline passes during it.
type endsDuring struct {
	context.Context
	calls int
}

func (e *endsDuring) Err() error {
	e.calls++
	if e.calls > 2 {
		return context.DeadlineExceeded
	}
	return nil
}

// TestPNGRowsMatchImagePNG: the row decoder reads every colour type and
// depth, filtered and interlaced, with palette and key transparency, to
// the same pixels as image/png (premultiplied 8-bit, within one step of
// rounding for 16-bit samples with alpha).
func TestPNGRowsMatchImagePNG(t *testing.T) {
	type file struct {
		name string
		data []byte
	}
	var files []file
	for _, ctype := range []int{pngGray, pngRGB, pngPaletted, pngGrayAlpha, pngRGBA} {
		depths := map[int][]int{pngGray: {1, 2, 4, 8, 16}, pngPaletted: {1, 2, 4, 8}}[ctype]
		if depths == nil {
			depths = []int{8, 16}
		}
		for _, depth := range depths {
			for _, interlaced := range []bool{false, true} {
				spec := pngSpec{w: 37, h: 29, depth: depth, ctype: ctype, interlaced: interlaced, filtered: true,
					transKey: ctype == pngGray || ctype == pngRGB}
				files = append(files, file{fmt.Sprintf("type %d depth %d interlaced %v", ctype, depth, interlaced), spec.encode(pattern)})
			}
		}
	}
	// image/png's encoder picks its own filters and packs small palettes.
	for _, n := range []int{2, 4, 16, 200} {
		pal := color.Palette{}
		for i := range n {
			pal = append(pal, color.NRGBA{uint8(i * 7), uint8(255 - i), uint8(i * 3), uint8(255 - i%3*100)})
		}
		img := image.NewPaletted(image.Rect(0, 0, 45, 33), pal)
		for i := range img.Pix {
			img.Pix[i] = uint8(i * 7 % n)
		}
		var buf bytes.Buffer
		png.Encode(&buf, img)
		files = append(files, file{fmt.Sprintf("image/png paletted %d colours", n), buf.Bytes()})
	}
	for _, img := range []image.Image{testNRGBA(51, 40), image.NewGray16(image.Rect(0, 0, 19, 23))} {
		var buf bytes.Buffer
		png.Encode(&buf, img)
		files = append(files, file{fmt.Sprintf("image/png %T", img), buf.Bytes()})
	}
	for _, f := range files {
		want, err := png.Decode(bytes.NewReader(f.data))
		if err != nil {
			t.Fatalf("%s: image/png: %v", f.name, err)
		}
		wantRGBA := image.NewRGBA(want.Bounds())
		draw.Draw(wantRGBA, wantRGBA.Rect, want, image.Point{}, draw.Src)
		src, err := decode(t.Context(), "png", f.data)
		if err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		w, h := src.size()
		got := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			if err := src.next(got.Pix[y*got.Stride : (y+1)*got.Stride]); err != nil {
				t.Fatalf("%s: row %d: %v", f.name, y, err)
			}
		}
		if err := src.done(); err != nil {
			t.Fatalf("%s: done: %v", f.name, err)
		}
		if got.Rect != wantRGBA.Rect {
			t.Fatalf("%s: %v, want %v", f.name, got.Rect, wantRGBA.Rect)
		}
		for i := range got.Pix {
			if d := int(got.Pix[i]) - int(wantRGBA.Pix[i]); d < -1 || d > 1 {
				t.Fatalf("%s: pixel %d channel %d: %d, want %d", f.name, i/4, i%4, got.Pix[i], wantRGBA.Pix[i])
			}
		}
	}
}

// fixCRC recomputes the CRC of the chunk whose type is at typ.
func fixCRC(data []byte, typ int) {
	n := int(binary.BigEndian.Uint32(data[typ-4:]))
	binary.BigEndian.PutUint32(data[typ+4+n:], crc32.ChecksumIEEE(data[typ:typ+4+n]))
}

func testNRGBA(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 13 % 251)
	}
	return img
}

// TestPNGRowsRefuseDamage: a bad CRC, or pixel data going on past the
// picture, is damage, as image/png says.
func TestPNGRowsRefuseDamage(t *testing.T) {
	good := testPNG(40, 30, 8, pngRGB, false, gradient)
	idat := bytes.Index(good, []byte("IDAT"))
	badCRC := bytes.Clone(good)
	badCRC[idat+6] ^= 0xff
	extra := pngSpec{w: 40, h: 31, depth: 8, ctype: pngRGB}.encode(gradient)
	ihdr := bytes.Index(extra, []byte("IHDR"))
	extra[ihdr+4+7] = 30 // claims one row fewer than it holds
	fixCRC(extra, ihdr)
	for name, data := range map[string][]byte{"bad CRC": badCRC, "extra rows": extra} {
		src, err := decode(t.Context(), "png", data)
		if err == nil {
			row := make([]byte, 4*40)
			for range 30 {
				if err = src.next(row); err != nil {
					break
				}
			}
			if err == nil {
				err = src.done()
			}
		}
		if !errors.Is(err, ErrImageDamaged) {
			t.Errorf("%s: %v, want ErrImageDamaged", name, err)
		}
	}
}

// TestScaleRows: a uniform picture stays uniform at any size, the same
// size is an exact copy, and halving a fine checkerboard gives its
// average grey (the filter is widened, so nothing aliases).
func TestScaleRows(t *testing.T) {
	uniform := image.NewRGBA(image.Rect(0, 0, 333, 517))
	draw.Draw(uniform, uniform.Rect, image.NewUniform(color.RGBA{10, 120, 230, 255}), image.Point{}, draw.Src)
	small := image.NewRGBA(image.Rect(0, 0, 100, 155))
	if _, err := scaleRows(t.Context(), newImageRows(uniform), small); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(small.Pix); i += 4 {
		if got := small.Pix[i : i+4]; !bytes.Equal(got, []byte{10, 120, 230, 255}) {
			t.Fatalf("uniform scaled: pixel %d is %v", i/4, got)
		}
	}
	same := image.NewRGBA(uniform.Rect)
	copy(uniform.Pix[4000:], []byte{1, 2, 3, 4, 250, 251, 252, 255})
	if opaque, err := scaleRows(t.Context(), newImageRows(uniform), same); err != nil || opaque || !bytes.Equal(same.Pix, uniform.Pix) {
		t.Fatalf("same size: opaque %v, %v, equal %v", opaque, err, bytes.Equal(same.Pix, uniform.Pix))
	}
	board := image.NewGray(image.Rect(0, 0, 400, 400))
	for y := range 400 {
		for x := range 400 {
			board.Pix[y*400+x] = uint8((x + y) % 2 * 255)
		}
	}
	half := image.NewRGBA(image.Rect(0, 0, 200, 200))
	if _, err := scaleRows(t.Context(), newImageRows(board), half); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(half.Pix); i += 4 {
		if v := half.Pix[i]; v < 120 || v > 135 {
			t.Fatalf("checkerboard halved: pixel %d is %d, want about 128", i/4, v)
		}
	}
}
