package seed

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// TestEveryProductTypeHasADrawing: each product type the demo catalog
// names has its own drawing (no department picture stands in), no
// drawing is for a type the catalog does not name, and every demo item's
// name leads to its type's picture in its colour.
func TestEveryProductTypeHasADrawing(t *testing.T) {
	named := map[string]bool{}
	for _, c := range demoCategories {
		for _, n := range c.nouns {
			named[n] = true
			if drawings[n] == nil {
				t.Errorf("%s (%s) has no drawing", n, c.name)
			}
		}
	}
	for n := range drawings {
		if !named[n] {
			t.Errorf("a drawing for %q, which the catalog does not name", n)
		}
	}
	for _, it := range DemoItems(time.Unix(0, 0)) {
		product, colour := demoProductOf(it.Name), demoColourOf(it.Name)
		if drawings[product] == nil || demoPalette[colour] == (rgb{}) {
			t.Errorf("item %d %q: product %q, colour %q", it.ID, it.Name, product, colour)
		}
	}
}

// materialMap renders a product's drawing small: the main material of
// each pixel.
func materialMap(product string, size int) []material {
	var p pic
	drawings[product](&p)
	pix, keys := p.render(size)
	out := make([]material, len(pix))
	for i, k := range pix {
		out[i] = keys[k].a
	}
	return out
}

// TestProductDrawingsDiffer: any two product types' drawings differ
// substantially: in the material of at least one pixel in twenty, so a
// knife is not a mug (they differ in a third) and each book has its own
// cover. Every drawing fills at least a twenty-fifth of its picture.
func TestProductDrawingsDiffer(t *testing.T) {
	const size = 64
	var products []string
	maps := map[string][]material{}
	for n := range drawings {
		products = append(products, n)
		maps[n] = materialMap(n, size)
	}
	slices.Sort(products)
	differ := func(a, b string) int {
		n := 0
		for k := range maps[a] {
			if maps[a][k] != maps[b][k] {
				n++
			}
		}
		return n
	}
	if n := differ("Chef's Knife", "Dutch Oven"); n < size*size/5 {
		t.Errorf("the knife and the Dutch oven differ in only %d of %d pixels", n, size*size)
	}
	least, pair := size*size, ""
	for i, a := range products {
		covered := 0
		for _, m := range maps[a] {
			if m != matBack && m != matShadow {
				covered++
			}
		}
		if covered < size*size/25 {
			t.Errorf("%s covers only %d of %d pixels", a, covered, size*size)
		}
		for _, b := range products[i+1:] {
			n := differ(a, b)
			if n < size*size/20 {
				t.Errorf("%s and %s differ in only %d of %d pixels", a, b, n, size*size)
			}
			if n < least {
				least, pair = n, a+" and "+b
			}
		}
	}
	t.Logf("the closest pair, %s, differ in %d of %d pixels", pair, least, size*size)
	// DEMO_PICTURE_DIR=/tmp go test ./store/seed -run TestProductDrawingsDiffer
	// writes them all to look at.
	if dir := os.Getenv("DEMO_PICTURE_DIR"); dir != "" {
		writeContactSheet(t, dir)
	}
}

// TestDemoPictureDeterministic: the same item is drawn to the same bytes
// every time, in every size; another colour is another picture.
func TestDemoPictureDeterministic(t *testing.T) {
	first, err := drawProduct("Chef's Knife", drawings["Chef's Knife"])
	if err != nil {
		t.Fatal(err)
	}
	again, err := drawProduct("Chef's Knife", drawings["Chef's Knife"])
	if err != nil {
		t.Fatal(err)
	}
	for key, img := range first {
		other := again[key]
		if other.Hash != img.Hash || len(other.Renditions) != 2 {
			t.Fatalf("%s drawn twice: %s, then %s", key, img.Hash, other.Hash)
		}
		for i, r := range img.Renditions {
			if !bytes.Equal(r.Bytes, other.Renditions[i].Bytes) {
				t.Errorf("%s at %d: different bytes", key, r.Width)
			}
			decoded, err := png.Decode(bytes.NewReader(r.Bytes))
			if err != nil || decoded.Bounds().Dx() != r.Width || decoded.Bounds().Dy() != r.Height {
				t.Fatalf("%s at %d: %v", key, r.Width, err)
			}
		}
	}
	if first[demoPictureKey("Chef's Knife", "Slate")].Hash == first[demoPictureKey("Chef's Knife", "Amber")].Hash {
		t.Error("two colours, one picture")
	}
}

// writeContactSheet writes every product type, one colour each, to
// contact.png in dir, to look at them.
func writeContactSheet(t *testing.T, dir string) {
	const cell, cols = 160, 10
	var products []string
	for _, c := range demoCategories {
		products = append(products, c.nouns...)
	}
	sheet := image.NewRGBA(image.Rect(0, 0, cols*cell, (len(products)+cols-1)/cols*cell))
	for i, n := range products {
		pics, err := drawProduct(n, drawings[n])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(pics[demoPictureKey(n, demoColours[(i+i/len(demoColours))%len(demoColours)])].Renditions[0].Bytes))
		if err != nil {
			t.Fatal(err)
		}
		at := image.Pt(i%cols*cell, i/cols*cell)
		draw.Draw(sheet, image.Rectangle{Min: at, Max: at.Add(image.Pt(cell, cell))}, img, image.Pt(80, 80), draw.Src)
		small := image.NewRGBA(image.Rect(0, 0, cell, cell))
		for y := range cell {
			for x := range cell {
				small.Set(x, y, img.At(x*2, y*2))
			}
		}
		draw.Draw(sheet, image.Rectangle{Min: at, Max: at.Add(image.Pt(cell, cell))}, small, image.Point{}, draw.Src)
	}
	f, err := os.Create(filepath.Join(dir, "contact.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, sheet); err != nil {
		t.Fatal(err)
	}
}
