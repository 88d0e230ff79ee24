package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // registers GIF decoding
	"image/jpeg"
	"image/png"
	"runtime"
	"runtime/debug"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // registers WebP decoding
)

// Image limits.
const (
	// DefaultMaxImageBytes is MAX_IMAGE_BYTES's default: 10 MiB.
	DefaultMaxImageBytes = 10 << 20
	// MaxImagePixels is the largest picture accepted, checked from the
	// header before any pixel is decoded (a decompression bomb is a small
	// file that claims a huge picture).
	MaxImagePixels = 40_000_000
	// MaxImageSide is the longest side accepted: JPEG cannot hold more
	// than 65,535 a side, and a rendition keeps the picture's proportions,
	// so a 1 x 40,000,000 strip (within the pixel count) must be refused
	// before it is decoded.
	MaxImageSide = 16_384
	// MaxItemImages is how many pictures one item may have.
	MaxItemImages = 8
	jpegQuality   = 82
)

// ImageWidths are the widths every picture is stored at; a picture
// narrower than one of them is stored at its own width instead (never
// upscaled).
var ImageWidths = []int{320, 640, 1280}

// Reasons an upload is refused; handlers show them to the admin.
var (
	ErrImageTooLarge  = errors.New("the file is larger than the upload limit")
	ErrImageTooMany   = errors.New("the picture has too many pixels")
	ErrImageShape     = errors.New("the picture is too long or too tall")
	ErrImageBusy      = errors.New("other pictures are being processed")
	ErrImageFormat    = errors.New("the file is not a JPEG, PNG, GIF or WebP picture")
	ErrImageDamaged   = errors.New("the picture is damaged or incomplete")
	ErrImagePolyglot  = errors.New("the file holds something besides the picture")
	ErrItemImagesFull = errors.New("the item already has the most pictures allowed")
)

// Rendition is one stored size of a picture.
type Rendition struct {
	Width, Height int
	Ext           string // jpg or png
	ContentType   string
	Bytes         []byte
}

// ProcessedImage is an upload decoded, checked and re-encoded: metadata
// (EXIF, comments, colour profiles, trailing data) is gone because only
// the pixels are kept.
type ProcessedImage struct {
	Hash       string // of the uploaded bytes: the same upload is stored once
	Renditions []Rendition
}

// imageSlots bounds the pictures decoded and re-encoded at once in this
// process: each takes up to several hundred MB and seconds of CPU, so a
// few uploads at once must wait their turn rather than starve the shop or
// exhaust its memory.
var imageSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)/2))

// ProcessImage checks an upload and re-encodes it at ImageWidths. The
// size, the format, the pixel count and the sides are checked before the
// pixels are decoded. It waits for a free slot (see imageSlots) until ctx
// ends, answering ErrImageBusy then, and gives up between steps once ctx
// has ended.
func ProcessImage(ctx context.Context, data []byte, maxBytes int64) (ProcessedImage, error) {
	if int64(len(data)) > maxBytes {
		return ProcessedImage{}, ErrImageTooLarge
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return ProcessedImage{}, ErrImageFormat
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > MaxImagePixels {
		return ProcessedImage{}, ErrImageTooMany
	}
	if cfg.Width > MaxImageSide || cfg.Height > MaxImageSide {
		return ProcessedImage{}, ErrImageShape
	}
	if err := checkContainer(format, data); err != nil {
		return ProcessedImage{}, err
	}
	select {
	case imageSlots <- struct{}{}:
		defer func() { <-imageSlots }()
	case <-ctx.Done():
		return ProcessedImage{}, ErrImageBusy
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return ProcessedImage{}, ErrImageDamaged
	}
	if cfg.Width*cfg.Height >= bigPicture {
		// Hand the decoded pixels back to the system once done: uploads
		// are rare, and without this a few large ones leave the process
		// holding gigabytes it no longer uses.
		defer debug.FreeOSMemory()
	}
	sum := sha256.Sum256(data)
	out := ProcessedImage{Hash: hex.EncodeToString(sum[:12])}
	out.Renditions, err = renditions(ctx, img)
	return out, err
}

// bigPicture is the pixel count from which ProcessImage returns the
// memory it used to the system.
const bigPicture = 4_000_000

// renditions re-encodes img at each width it is at least as wide as, and
// at its own width when it is narrower than the largest: JPEG for opaque
// pictures, PNG for those with transparency.
func renditions(ctx context.Context, img image.Image) ([]Rendition, error) {
	b := img.Bounds()
	var widths []int
	for _, w := range ImageWidths {
		if w <= b.Dx() {
			widths = append(widths, w)
		}
	}
	if b.Dx() < ImageWidths[len(ImageWidths)-1] {
		widths = append(widths, b.Dx())
	}
	opaque := isOpaque(img)
	var out []Rendition
	for _, w := range widths {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("resize picture: %w", err)
		}
		h := max(1, int(int64(b.Dy())*int64(w)/int64(b.Dx())))
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		if w == b.Dx() {
			draw.Draw(dst, dst.Bounds(), img, b.Min, draw.Src)
		} else {
			draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		}
		r, err := EncodeRendition(dst, opaque)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func EncodeRendition(img *image.RGBA, opaque bool) (Rendition, error) {
	var buf bytes.Buffer
	r := Rendition{Width: img.Bounds().Dx(), Height: img.Bounds().Dy()}
	if opaque {
		r.Ext, r.ContentType = "jpg", "image/jpeg"
		if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
			return r, fmt.Errorf("encode jpeg: %w", err)
		}
	} else {
		r.Ext, r.ContentType = "png", "image/png"
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(&buf, img); err != nil {
			return r, fmt.Errorf("encode png: %w", err)
		}
	}
	r.Bytes = buf.Bytes()
	return r, nil
}

func isOpaque(img image.Image) bool {
	if o, ok := img.(interface{ Opaque() bool }); ok {
		return o.Opaque()
	}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0xffff {
				return false
			}
		}
	}
	return true
}

// checkContainer refuses files that carry something after the picture
// (a ZIP, a script, a page): the container must end where the picture
// ends, and no markup a browser would sniff may appear anywhere.
func checkContainer(format string, data []byte) error {
	lower := bytes.ToLower(data)
	for _, marker := range [][]byte{[]byte("<script"), []byte("<html"), []byte("<?php"), []byte("<svg"), []byte("<!doctype"), []byte("<body"), []byte("<iframe")} {
		if bytes.Contains(lower, marker) {
			return ErrImagePolyglot
		}
	}
	var end int
	var ok bool
	switch format {
	case "png":
		end, ok = pngEnd(data)
	case "jpeg":
		end, ok = jpegEnd(data)
	case "gif":
		end, ok = len(data), len(data) > 0 && data[len(data)-1] == 0x3B
	case "webp":
		if len(data) >= 12 {
			end, ok = 8+int(binary.LittleEndian.Uint32(data[4:8])), true
		}
	default:
		return ErrImageFormat
	}
	if !ok {
		return ErrImageDamaged
	}
	if end != len(data) {
		return ErrImagePolyglot
	}
	return nil
}

// pngEnd walks the PNG chunks to the end of IEND.
func pngEnd(data []byte) (int, bool) {
	i := 8
	for i+12 <= len(data) {
		n := int(binary.BigEndian.Uint32(data[i : i+4]))
		if n < 0 || i+12+n > len(data) {
			return 0, false
		}
		typ := string(data[i+4 : i+8])
		i += 12 + n
		if typ == "IEND" {
			return i, true
		}
	}
	return 0, false
}

// jpegEnd is the offset after the last end-of-image marker; a JPEG file
// ends with it.
func jpegEnd(data []byte) (int, bool) {
	i := bytes.LastIndex(data, []byte{0xFF, 0xD9})
	if i < 0 {
		return 0, false
	}
	return i + 2, true
}
