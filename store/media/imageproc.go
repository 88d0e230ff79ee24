package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // registers GIF decoding
	"image/jpeg"
	"image/png"
	"io"
	"runtime"
	"runtime/debug"
	"slices"

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
	ErrImageHeavy     = errors.New("the picture needs more memory to process than the shop allows")
	ErrImageBusy      = errors.New("other pictures are being processed")
	ErrImageTimeout   = errors.New("processing the picture took longer than a request may")
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

// ProcessImage checks an upload and re-encodes it at ImageWidths, within
// the service's memory budget (see processImage).
func (s *Service) ProcessImage(ctx context.Context, data []byte, maxBytes int64) (ProcessedImage, error) {
	return processImage(ctx, s.ImageMemory, data, maxBytes)
}

// bigWork is the reservation from which processing hands the memory it
// used back to the system when done, refused or not: uploads are rare,
// and without it a few large ones leave the process holding hundreds of
// MB it no longer uses.
const bigWork = 64 << 20

// processImage checks an upload and re-encodes it at ImageWidths. The
// size, the format, the pixel count, the sides and the memory processing
// will need are checked from the header, before any pixel is decoded;
// that memory is then reserved from budget, waiting for it in turn (a
// *LoadError with ErrImageBusy if it does not come in time). Processing
// stops when ctx ends, between rows (a *LoadError with ErrImageTimeout).
func processImage(ctx context.Context, budget *MemoryBudget, data []byte, maxBytes int64) (ProcessedImage, error) {
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
	cost, err := costOf(format, cfg, data)
	if err != nil {
		return ProcessedImage{}, err
	}
	need := workingMemory(cost, len(data), cfg.Width, cfg.Height)
	if need > budget.size {
		return ProcessedImage{}, ErrImageHeavy
	}
	release, err := budget.Reserve(ctx, need)
	if err != nil {
		return ProcessedImage{}, err
	}
	defer release()
	if need >= bigWork {
		defer debug.FreeOSMemory()
	}
	src, err := decode(ctx, format, data)
	if err == nil && cost.peak-cost.held >= bigWork {
		// The decoder's own buffers (a progressive JPEG's coefficients)
		// are garbage now: collect them before the renditions are made.
		runtime.GC()
	}
	var out ProcessedImage
	if err == nil {
		out.Renditions, err = renditions(ctx, src)
	}
	if ctx.Err() != nil && err != nil {
		return ProcessedImage{}, &LoadError{Reason: ErrImageTimeout, RetryAfter: budget.retryAfter()}
	}
	if err != nil {
		return ProcessedImage{}, err
	}
	sum := sha256.Sum256(data)
	out.Hash = hex.EncodeToString(sum[:12])
	return out, nil
}

// decode opens the picture's rows: a PNG is read a row at a time (an
// interlaced one gathered first), other formats are decoded whole by
// their decoders, which stop at their next read once ctx has ended.
func decode(ctx context.Context, format string, data []byte) (rowSource, error) {
	if format == "png" {
		p, err := newPNGRows(data)
		if err != nil || !p.interlaced {
			return p, err
		}
		img, err := p.pngPicture(ctx)
		if err != nil {
			return nil, err
		}
		return newImageRows(img), nil
	}
	img, _, err := image.Decode(&ctxReader{ctx: ctx, r: bytes.NewReader(data)})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("decode picture: %w", ctx.Err())
		}
		return nil, ErrImageDamaged
	}
	return newImageRows(img), nil
}

// ctxReader fails its reads once ctx has ended.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (r *ctxReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, err
	}
	return r.r.Read(p)
}

// renditionSizes are the sizes a w x h picture is stored at, widest
// first: each of ImageWidths it is at least as wide as, and its own width
// when it is narrower than the widest, with its proportions.
func renditionSizes(w, h int) []image.Point {
	var out []image.Point
	if w < ImageWidths[len(ImageWidths)-1] {
		out = append(out, image.Pt(w, h))
	}
	for _, rw := range slices.Backward(ImageWidths) {
		if rw <= w {
			out = append(out, image.Pt(rw, max(1, int(int64(h)*int64(rw)/int64(w)))))
		}
	}
	return out
}

// renditions makes and encodes each size of the picture, in steps: the
// widest from the source's rows, and each narrower one from the one
// before, which is then encoded and dropped. So at most two sizes and
// one encoding are held beside the source, and the source is read once.
// Opaque pictures are stored as JPEG, others as PNG. The result is
// narrowest first.
func renditions(ctx context.Context, src rowSource) ([]Rendition, error) {
	sizes := renditionSizes(src.size())
	cur := image.NewRGBA(image.Rectangle{Max: sizes[0]})
	opaque, err := scaleRows(ctx, src, cur)
	if err == nil {
		err = src.done()
	}
	if err != nil {
		return nil, err
	}
	src = nil // the decoded picture can go
	out := make([]Rendition, len(sizes))
	for i := range sizes {
		var next *image.RGBA
		if i+1 < len(sizes) {
			next = image.NewRGBA(image.Rectangle{Max: sizes[i+1]})
			if _, err := scaleRows(ctx, newImageRows(cur), next); err != nil {
				return nil, err
			}
		}
		if out[len(sizes)-1-i], err = encodeRendition(ctx, cur, opaque); err != nil {
			return nil, err
		}
		cur = next
	}
	return out, nil
}

// encodeRendition encodes one size of a picture: JPEG if it is opaque,
// PNG otherwise.
func encodeRendition(ctx context.Context, img *image.RGBA, opaque bool) (Rendition, error) {
	var buf bytes.Buffer
	w := &ctxWriter{ctx: ctx, w: &buf}
	r := Rendition{Width: img.Bounds().Dx(), Height: img.Bounds().Dy()}
	if opaque {
		r.Ext, r.ContentType = "jpg", "image/jpeg"
		if err := jpeg.Encode(w, img, &jpeg.Options{Quality: jpegQuality}); err != nil {
			return r, fmt.Errorf("encode jpeg: %w", err)
		}
	} else {
		r.Ext, r.ContentType = "png", "image/png"
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		if err := enc.Encode(w, img); err != nil {
			return r, fmt.Errorf("encode png: %w", err)
		}
	}
	r.Bytes = buf.Bytes()
	return r, nil
}

// ctxWriter fails its writes once ctx has ended, which stops an encoder.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (w *ctxWriter) Write(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	return w.w.Write(p)
}
