package seed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image"
	"image/color"
	"maps"
	"math"
	"os"
	"slices"
	"sync"
	"time"

	"golang.org/x/image/draw"
	"golang.org/x/sync/errgroup"

	"storefront/store/media"
)

// demoPictureSize is the generated pictures' side in pixels; they are
// stored at this width and at 320.
const demoPictureSize = 640

// demoPalette gives each demo colour word its paint.
var demoPalette = map[string]color.RGBA{
	"Slate": {96, 111, 128, 255}, "Sage": {140, 163, 129, 255}, "Amber": {224, 152, 48, 255},
	"Indigo": {75, 72, 160, 255}, "Charcoal": {62, 64, 70, 255}, "Sand": {212, 188, 150, 255},
	"Terracotta": {196, 102, 72, 255}, "Ivory": {232, 226, 206, 255}, "Olive": {128, 128, 60, 255},
	"Cobalt": {40, 90, 190, 255},
}

// demoPictures generates one picture per demo category and colour: the
// category's product silhouette painted in the colour on a soft backdrop.
// Deterministic: the same bytes on every machine, so the content hashes
// are too. They are drawn once per process (every store in it shares
// them), or read from DemoPictureCacheDir when a start of the same
// program drew them before (see seed_images_cache.go).
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

// drawDemoPictures draws every demo picture, a few at a time.
func drawDemoPictures() (map[string]media.ProcessedImage, error) {
	out := map[string]media.ProcessedImage{}
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(4)
	for ci := range demoCategories {
		shape := renderShape(ci)
		for _, colour := range demoColours {
			g.Go(func() error {
				img, err := demoPicture(shape, demoPalette[colour])
				mu.Lock()
				out[demoPictureKey(demoCategories[ci].name, colour)] = img
				mu.Unlock()
				return err
			})
		}
	}
	return out, g.Wait()
}

func demoPictureKey(category, colour string) string { return category + "/" + colour }

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
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("seed images: %w", err)
	}
	defer tx.Rollback()
	// Inserted in key order: instances seeding one PostgreSQL at once then
	// take the unique-index locks in the same order and wait for each
	// other instead of deadlocking (map order differs per process).
	for _, key := range slices.Sorted(maps.Keys(pics)) {
		if err := media.InsertImage(ctx, tx, pics[key], s.clock.Now()); err != nil {
			return err
		}
	}
	for _, it := range DemoItems(s.clock.Now()) {
		img := pics[demoPictureKey(it.Category, demoColourOf(it.Name))]
		if img.Hash == "" {
			continue
		}
		if err := media.AttachFirstPicture(ctx, tx, it.ID, img.Hash); err != nil {
			return fmt.Errorf("seed images: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("seed images: %w", err)
	}
	s.log.Info("seeded demo pictures", "pictures", len(pics), "items", missing, "drawn", demoPicturesMemo.drawn,
		"took", time.Since(start).Round(time.Millisecond))
	return nil
}

// demoPicture paints a shape in a colour and stores it at two widths.
func demoPicture(sh shapeMask, paint color.RGBA) (media.ProcessedImage, error) {
	n := demoPictureSize
	img := image.NewRGBA(image.Rect(0, 0, n, n))
	for y := 0; y < n; y++ {
		// The backdrop: the colour, much lightened, fading upwards.
		t := 0.10 + 0.14*float64(y)/float64(n)
		var bg, fg [3]float64
		for k, c := range [3]uint8{paint.R, paint.G, paint.B} {
			bg[k], fg[k] = float64(c)*t+255*(1-t), float64(c)
		}
		for x := 0; x < n; x++ {
			i := y*n + x
			a, tone := sh.alpha[i], sh.tone[i]
			o := img.PixOffset(x, y)
			for k := range 3 {
				v := bg[k]*(1-a) + min(255, fg[k]*tone)*a
				img.Pix[o+k] = uint8(max(0, min(255, v)))
			}
			img.Pix[o+3] = 255
		}
	}
	small := image.NewRGBA(image.Rect(0, 0, 320, 320))
	draw.ApproxBiLinear.Scale(small, small.Bounds(), img, img.Bounds(), draw.Src, nil)
	var out media.ProcessedImage
	for _, im := range []*image.RGBA{small, img} {
		r, err := media.EncodeRendition(im, true)
		if err != nil {
			return out, err
		}
		out.Renditions = append(out.Renditions, r)
	}
	sum := sha256.Sum256(out.Renditions[len(out.Renditions)-1].Bytes)
	out.Hash = hex.EncodeToString(sum[:12])
	return out, nil
}

// shapeMask is a silhouette: per pixel its coverage (alpha) and shade
// (tone: 1 is the paint itself, below darker, above lighter; 0 with some
// alpha is a shadow).
type shapeMask struct {
	alpha, tone []float64
}

// layer is one part of a silhouette: a signed distance (negative inside),
// its shade, and how soft its edge is.
type layer struct {
	dist func(x, y float64) float64
	tone float64
	soft float64
}

// renderShape draws category ci's silhouette, centred on the canvas.
func renderShape(ci int) shapeMask {
	n := demoPictureSize
	m := shapeMask{alpha: make([]float64, n*n), tone: make([]float64, n*n)}
	layers := append([]layer{{dist: ellipse(320, 540, 190, 26), tone: 0, soft: 18}}, categoryLayers(ci)...)
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			i := y*n + x
			px, py := float64(x)+0.5, float64(y)+0.5
			// A gentle light from above: the top of every part is lighter.
			light := 1.12 - 0.24*py/float64(n)
			for _, l := range layers {
				cov := math.Max(0, math.Min(1, 0.5-l.dist(px, py)/l.soft))
				if l.tone == 0 {
					cov *= 0.18 // shadows are faint
				}
				if cov == 0 {
					continue
				}
				tone := l.tone * light
				m.tone[i] = m.tone[i]*(1-cov) + tone*cov
				m.alpha[i] = m.alpha[i]*(1-cov) + cov
			}
			if m.alpha[i] > 0 {
				m.tone[i] /= m.alpha[i]
			}
		}
	}
	return m
}

// categoryLayers are the parts of each department's product: a mug, a
// tent, a book, a tablet, a potted plant, a ball, a notebook, a shirt, a
// lamp and a sports ball.
func categoryLayers(ci int) []layer {
	switch demoCategories[ci].name {
	case "Kitchen":
		return []layer{
			{dist: ring(450, 330, 72, 20), tone: 0.8, soft: 1.5},
			{dist: roundBox(300, 340, 140, 170, 36), tone: 1, soft: 1.5},
			{dist: roundBox(300, 190, 140, 16, 12), tone: 1.15, soft: 1.5},
		}
	case "Outdoors":
		return []layer{
			{dist: polygon(320, 120, 560, 520, 80, 520), tone: 1, soft: 1.5},
			{dist: polygon(320, 250, 400, 520, 240, 520), tone: 0.55, soft: 1.5},
		}
	case "Books":
		return []layer{
			{dist: roundBox(330, 320, 160, 210, 14), tone: 1, soft: 1.5},
			{dist: roundBox(190, 320, 22, 210, 8), tone: 0.7, soft: 1.5},
			{dist: roundBox(350, 230, 90, 20, 6), tone: 1.3, soft: 1.5},
		}
	case "Electronics":
		return []layer{
			{dist: roundBox(320, 320, 230, 160, 30), tone: 0.6, soft: 1.5},
			{dist: roundBox(320, 320, 200, 130, 14), tone: 1.05, soft: 1.5},
			{dist: circle(530, 320, 10), tone: 1.3, soft: 1.5},
		}
	case "Garden":
		return []layer{
			{dist: roundBox(320, 300, 10, 120, 6), tone: 0.6, soft: 1.5},
			{dist: circle(250, 220, 80), tone: 0.8, soft: 1.5},
			{dist: circle(390, 200, 90), tone: 0.9, soft: 1.5},
			{dist: circle(320, 140, 80), tone: 1.05, soft: 1.5},
			{dist: polygon(200, 380, 440, 380, 400, 530, 240, 530), tone: 1, soft: 1.5},
		}
	case "Toys":
		return []layer{
			{dist: roundBox(230, 440, 90, 90, 12), tone: 1, soft: 1.5},
			{dist: roundBox(420, 440, 90, 90, 12), tone: 0.8, soft: 1.5},
			{dist: roundBox(325, 270, 90, 90, 12), tone: 1.2, soft: 1.5},
			{dist: circle(325, 170, 22), tone: 1.2, soft: 1.5},
		}
	case "Office":
		return []layer{
			{dist: roundBox(320, 320, 170, 220, 16), tone: 1, soft: 1.5},
			{dist: roundBox(340, 230, 110, 6, 3), tone: 1.35, soft: 1.5},
			{dist: roundBox(340, 290, 110, 6, 3), tone: 1.35, soft: 1.5},
			{dist: roundBox(340, 350, 110, 6, 3), tone: 1.35, soft: 1.5},
			{dist: roundBox(170, 320, 12, 220, 6), tone: 0.7, soft: 1.5},
		}
	case "Apparel":
		return []layer{
			{dist: polygon(190, 130, 230, 230, 150, 310, 90, 250), tone: 0.85, soft: 1.5},
			{dist: polygon(450, 130, 550, 250, 490, 310, 410, 230), tone: 0.85, soft: 1.5},
			{dist: roundBox(320, 340, 140, 210, 20), tone: 1, soft: 1.5},
			{dist: circle(320, 128, 46), tone: 1.3, soft: 1.5},
		}
	case "Home":
		return []layer{
			{dist: polygon(230, 120, 410, 120, 470, 300, 170, 300), tone: 1.1, soft: 1.5},
			{dist: roundBox(320, 400, 12, 110, 6), tone: 0.6, soft: 1.5},
			{dist: roundBox(320, 510, 110, 18, 10), tone: 0.8, soft: 1.5},
		}
	default: // Sports
		return []layer{
			{dist: circle(320, 320, 200), tone: 1, soft: 1.5},
			{dist: intersect(ring(120, 320, 200, 6), circle(320, 320, 200)), tone: 0.6, soft: 1.5},
			{dist: intersect(ring(520, 320, 200, 6), circle(320, 320, 200)), tone: 0.6, soft: 1.5},
			{dist: roundBox(320, 320, 200, 6, 3), tone: 0.6, soft: 1.5},
		}
	}
}

// hypot without math.Hypot's overflow care, which these sizes never need.
func hypot(x, y float64) float64 { return math.Sqrt(x*x + y*y) }

func circle(cx, cy, r float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return hypot(x-cx, y-cy) - r }
}

func ring(cx, cy, r, w float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return math.Abs(hypot(x-cx, y-cy)-r) - w }
}

func ellipse(cx, cy, rx, ry float64) func(x, y float64) float64 {
	return func(x, y float64) float64 {
		return (hypot((x-cx)/rx, (y-cy)/ry) - 1) * math.Min(rx, ry)
	}
}

// roundBox is a rectangle with half-sizes hw, hh and corner radius r.
func roundBox(cx, cy, hw, hh, r float64) func(x, y float64) float64 {
	return func(x, y float64) float64 {
		qx, qy := math.Abs(x-cx)-hw+r, math.Abs(y-cy)-hh+r
		return hypot(math.Max(qx, 0), math.Max(qy, 0)) + math.Min(math.Max(qx, qy), 0) - r
	}
}

// polygon is a convex polygon given clockwise on screen (x right, y
// down); its distance is the largest distance outside any edge, exact
// enough for anti-aliased edges.
func polygon(pts ...float64) func(x, y float64) float64 {
	type edge struct{ x, y, nx, ny float64 }
	var edges []edge
	for i := 0; i < len(pts); i += 2 {
		j := (i + 2) % len(pts)
		dx, dy := pts[j]-pts[i], pts[j+1]-pts[i+1]
		l := hypot(dx, dy)
		edges = append(edges, edge{pts[i], pts[i+1], dy / l, -dx / l})
	}
	return func(x, y float64) float64 {
		d := math.Inf(-1)
		for _, e := range edges {
			d = math.Max(d, (x-e.x)*e.nx+(y-e.y)*e.ny)
		}
		return d
	}
}

func intersect(a, b func(x, y float64) float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return math.Max(a(x, y), b(x, y)) }
}
