package seed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"storefront/store/media"
)

// demoPictureSize is the generated pictures' side in pixels; they are
// stored at this width and at 320.
const demoPictureSize = 640

// demoPalette gives each demo colour word its paint.
var demoPalette = map[string]rgb{
	"Slate": {96, 111, 128}, "Sage": {140, 163, 129}, "Amber": {224, 152, 48},
	"Indigo": {75, 72, 160}, "Charcoal": {62, 64, 70}, "Sand": {212, 188, 150},
	"Terracotta": {196, 102, 72}, "Ivory": {232, 226, 206}, "Olive": {128, 128, 60},
	"Cobalt": {40, 90, 190},
}

// demoPictures generates one picture per product type and colour: the
// type's drawing (see drawings) painted in the colour. Deterministic: the
// same bytes on every machine, so the content hashes are too. They are
// drawn once per process (every store in it shares them), or read from
// the picture cache directory when a start of the same program drew them
// before (see pictures_cache.go).
func (s *Service) demoPictures() (map[string]media.ProcessedImage, error) {
	demoPicturesMemo.once.Do(func() {
		m := &demoPicturesMemo
		cache := ""
		if s.opt.PictureCacheDir != "" {
			if exe, err := os.Executable(); err == nil {
				cache = demoPictureCacheFile(s.opt.PictureCacheDir, exe)
			}
		}
		if pics, ok := loadDemoPictures(cache); ok {
			m.pics = pics
			return
		}
		m.pics, m.err = drawDemoPictures()
		m.drawn = true
		if m.err == nil && cache != "" {
			if err := saveDemoPictures(cache, m.pics); err != nil {
				s.log.Warn("demo pictures: not cached", "err", err)
			}
		}
	})
	return demoPicturesMemo.pics, demoPicturesMemo.err
}

var demoPicturesMemo struct {
	once  sync.Once
	pics  map[string]media.ProcessedImage
	err   error
	drawn bool // drawn by this process, not read from the cache
}

// demoPictureCount is how many demo pictures there are: every product
// type in every colour.
func demoPictureCount() int { return len(drawings) * len(demoColours) }

// drawDemoPictures draws every demo picture, a product type at a time on
// each CPU.
func drawDemoPictures() (map[string]media.ProcessedImage, error) {
	out := make(map[string]media.ProcessedImage, demoPictureCount())
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for product, draw := range drawings {
		g.Go(func() error {
			pics, err := drawProduct(product, draw)
			mu.Lock()
			maps.Copy(out, pics)
			mu.Unlock()
			return err
		})
	}
	return out, g.Wait()
}

// drawProduct renders one product type's drawing at 320 and 640, encodes
// each once as a paletted PNG, and gives it each colour's palette.
func drawProduct(product string, draw func(*pic)) (map[string]media.ProcessedImage, error) {
	var p pic
	draw(&p)
	sizes := []int{320, demoPictureSize}
	encoded := make([][]byte, len(sizes))
	keys := make([][]mixKey, len(sizes))
	for i, n := range sizes {
		pix, k := p.render(n)
		b, err := encodePaletted(pix, n, palette(k, rgb{}))
		if err != nil {
			return nil, fmt.Errorf("draw %s: %w", product, err)
		}
		encoded[i], keys[i] = b, k
	}
	out := make(map[string]media.ProcessedImage, len(demoColours))
	for _, colour := range demoColours {
		var img media.ProcessedImage
		for i, n := range sizes {
			b, err := withPalette(encoded[i], palette(keys[i], demoPalette[colour]))
			if err != nil {
				return nil, fmt.Errorf("draw %s: %w", product, err)
			}
			img.Renditions = append(img.Renditions, media.Rendition{Width: n, Height: n, Ext: "png", ContentType: "image/png", Bytes: b})
		}
		sum := sha256.Sum256(img.Renditions[len(img.Renditions)-1].Bytes)
		img.Hash = hex.EncodeToString(sum[:12])
		out[demoPictureKey(product, colour)] = img
	}
	return out, nil
}

func demoPictureKey(product, colour string) string { return product + "/" + colour }

// demoProductOf is the product type a demo item's name ends with (before
// any " No. n"), or "" for a name the demo catalog did not make.
func demoProductOf(name string) string {
	if i := strings.Index(name, " No. "); i >= 0 {
		name = name[:i]
	}
	for _, c := range demoCategories {
		for _, n := range c.nouns {
			if strings.HasSuffix(name, " "+n) {
				return n
			}
		}
	}
	return ""
}

// seedImages gives every demo item without a picture its generated one.
// Idempotent and safe with several instances seeding at once.
func (s *Service) seedImages(ctx context.Context) error {
	missing, err := s.Media.WithoutPictures(ctx, DemoItemCount)
	if err != nil {
		return fmt.Errorf("seed images: %w", err)
	}
	if missing == 0 {
		return nil
	}
	start := time.Now()
	pics, err := s.demoPictures()
	if err != nil {
		return fmt.Errorf("seed images: %w", err)
	}
	items := DemoItems(s.clock.Now())
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = demoPictureKey(demoProductOf(it.Name), demoColourOf(it.Name))
		if _, ok := pics[keys[i]]; !ok {
			return fmt.Errorf("seed images: no demo picture for %q", it.Name)
		}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("seed images: %w", err)
	}
	defer tx.Rollback()
	// The pictures some item shows are stored, in key order: instances
	// seeding one PostgreSQL at once then take the unique-index locks in
	// the same order and wait for each other instead of deadlocking.
	used := slices.Compact(slices.Sorted(slices.Values(keys)))
	for _, key := range used {
		if err := media.InsertImage(ctx, tx, pics[key], s.clock.Now()); err != nil {
			return err
		}
	}
	for i, it := range items {
		if err := media.AttachFirstPicture(ctx, tx, it.ID, pics[keys[i]].Hash); err != nil {
			return fmt.Errorf("seed images: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("seed images: %w", err)
	}
	s.log.Info("seeded demo pictures", "pictures", len(used), "items", missing, "drawn", demoPicturesMemo.drawn,
		"took", time.Since(start).Round(time.Millisecond))
	return nil
}
