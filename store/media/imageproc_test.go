package media

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
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
	img.Set(0, 0, color.RGBA{1, 2, 3, 255})
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestProcessImageWaitsForASlot: while every processing slot is taken, an
// upload waits until its context ends and is then refused as busy without
// decoding anything; once a slot frees it goes through.
func TestProcessImageWaitsForASlot(t *testing.T) {
	data := smallPNG(t)
	release := holdImageSlots()
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	_, err := ProcessImage(ctx, data, DefaultMaxImageBytes)
	cancel()
	if !errors.Is(err, ErrImageBusy) {
		release()
		t.Fatalf("with every slot taken: %v, want ErrImageBusy", err)
	}
	release()
	img, err := ProcessImage(t.Context(), data, DefaultMaxImageBytes)
	if err != nil || len(img.Renditions) != 3 {
		t.Fatalf("after the slots freed: %d renditions, %v", len(img.Renditions), err)
	}
}

// TestProcessImageStopsWhenTheRequestEnds: a request that has ended gets
// no renditions made for it.
func TestProcessImageStopsWhenTheRequestEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := ProcessImage(ctx, smallPNG(t), DefaultMaxImageBytes); err == nil {
		t.Fatal("a cancelled request's picture was processed")
	}
}

// holdImageSlots takes every picture-processing slot, as uploads in
// progress would, until the returned function is called.
func holdImageSlots() (release func()) {
	n := cap(imageSlots)
	for range n {
		imageSlots <- struct{}{}
	}
	return func() {
		for range n {
			<-imageSlots
		}
	}
}
