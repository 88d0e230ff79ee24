package apptest_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"storefront/handlers/apptest"
)

// The phone and the gallery: what a shopper on a 390 x 844 phone sees on
// the first screen without opening the menu, what a desktop keeps, and
// the item page's thumbnails choosing the large picture with JavaScript
// on and off.

// phoneItem is the demo item these tests dress up: in stock, renamed to
// a long name and given a second picture by the admin.
const (
	phoneItemID   = 8
	phoneItem     = "8"
	phoneItemName = "Hand-forged Damascus Steel Chef's Knife with Walnut Handle, Leather Sheath and Gift Box"
)

// onScreen is JavaScript that describes the first element matching a
// selector: "ok" when it is shown (not display:none, hidden, transparent
// or zero-sized) and its box lies within the viewport, else why not.
func onScreen(sel string) string {
	return fmt.Sprintf(`(() => {
		const e = document.querySelector(%q);
		if (!e) return 'missing';
		if (!e.checkVisibility({opacityProperty: true, visibilityProperty: true})) return 'hidden';
		const r = e.getBoundingClientRect();
		if (r.width < 1 || r.height < 1) return 'zero-sized';
		if (r.left < 0 || r.top < 0 || r.right > innerWidth || r.bottom > innerHeight)
			return 'off screen: ' + [r.left, r.top, r.right, r.bottom].map(Math.round).join(',') + ' in ' + innerWidth + 'x' + innerHeight;
		return 'ok';
	})()`, sel)
}

// shown reports whether the first element matching sel is rendered
// (wherever it is on the page).
func shown(tb *e2eTab, sel string) bool {
	tb.t.Helper()
	return eval[bool](tb, fmt.Sprintf(`(e => !!e && e.checkVisibility({opacityProperty: true, visibilityProperty: true}))(document.querySelector(%q))`, sel))
}

// itemPicture is one of the item's pictures as the page should show it
// large: its content hash and its largest size.
type itemPicture struct {
	Hash          string
	Width, Height int
}

// dressItem has the admin give the phone item a long name and a second
// picture (an 800 x 600 PNG) through the admin pages, and returns its two
// pictures.
func dressItem(t *testing.T, b *e2eBrowser, app *browserApp) (first, second itemPicture) {
	t.Helper()
	admin := b.freshTab(t, app)
	admin.signInAdmin(app)
	admin.navigate("/admin/items/" + phoneItem)
	admin.fill("#name", phoneItemName)
	admin.click(`form[action="/admin/items/` + phoneItem + `"] button[type=submit]`)
	admin.waitFor(`[data-testid=flash]`)

	pic := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for y := range 600 {
		for x := range 800 {
			pic.Set(x, y, color.RGBA{20, 60, uint8(120 + x*100/800), 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, pic); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "second.png")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	admin.do("choose the picture", chromedp.SetUploadFiles(chromedp.CSS(`#image`), []string{file}))
	admin.click(`form[action="/admin/items/` + phoneItem + `/images"] button[type=submit]`)
	admin.waitFor(`form[action="/admin/items/` + phoneItem + `/images/2/delete"]`)

	imgs, err := app.Store.Media.ItemImages(t.Context(), phoneItemID)
	if err != nil || len(imgs) != 2 {
		t.Fatalf("the item has %d pictures (%v), want the demo one and the upload", len(imgs), err)
	}
	var out [2]itemPicture
	for i, img := range imgs {
		largest := img.Sizes[len(img.Sizes)-1]
		out[i] = itemPicture{Hash: img.Hash, Width: largest.Width, Height: largest.Height}
	}
	if out[1].Width != 800 || out[1].Height != 600 {
		t.Fatalf("the upload is stored at %dx%d, want 800x600", out[1].Width, out[1].Height)
	}
	return out[0], out[1]
}

// TestBrowserPhoneFirstScreen: at 390 x 844, without opening the menu,
// the cart link with its count and the search field are on screen on
// every shop page; an item page with a long name and two pictures shows
// its Add to cart button above the fold; the listing's filters are folded
// behind a summary that names those in force, and open with a tap. At
// 1280 x 900 the header shows its sections, search, cart and account
// links, the listing its filters without a tap, and the item page the
// picture beside the buy form. Both sizes pass axe and fit the screen.
func TestBrowserPhoneFirstScreen(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	dressItem(t, b, app)
	item := "/items/" + phoneItem

	phone := b.freshTab(t, app)
	phone.do("phone viewport", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
	// A line in the cart, so the count on screen is the shopper's own.
	phone.navigate(item)
	phone.click("form.buy button[type=submit]")
	phone.waitFor(".cart-msg a[href='/cart']")
	for _, path := range []string{"/", "/items", item, item, "/cart", "/articles"} {
		phone.navigate(path)
		for _, sel := range []string{`[data-testid=cart-count]`, `#site-search`} {
			if got := eval[string](phone, onScreen(sel)); got != "ok" {
				t.Errorf("390 px, %s: %s is %s", path, sel, got)
			}
		}
		if got := phone.text(`[data-testid=cart-count]`); got != "1" {
			t.Errorf("390 px, %s: the cart count on screen is %q, want 1", path, got)
		}
		if eval[bool](phone, `document.getElementById('menu-toggle').checked`) {
			t.Errorf("390 px, %s: the menu is open", path)
		}
		if wide := tooWide(phone); wide != "" {
			t.Errorf("390 px, %s is wider than the screen: %s", path, wide)
		}
	}
	// The item page, from the page cache: its holes carry the visitor's
	// cart count.
	if res := phone.navigateResponse(item); fmt.Sprint(res.Headers["X-Cache"]) != "HIT" {
		t.Errorf("the item page was %v, want a page cache HIT", res.Headers["X-Cache"])
	}
	if got := phone.text(`[data-testid=cart-count]`); got != "1" {
		t.Errorf("390 px, cached item page: the cart count is %q, want 1", got)
	}
	if got := phone.text(`[data-testid=item] h1`); got != phoneItemName {
		t.Fatalf("the item is named %q", got)
	}
	for _, sel := range []string{`form.buy button[type=submit]`, `[data-testid=item-price]`, `[data-testid=item-image][data-position="1"]`} {
		if got := eval[string](phone, onScreen(sel)); got != "ok" {
			t.Errorf("390 px, item page: %s is %s", sel, got)
		}
	}
	phone.screenshot("phone-item")

	// The listing: folded filters, their summary, a tap opens them.
	phone.navigate("/items?category=Books&min=5&max=80&in_stock=1&sort=price_asc")
	if phone.attr(`[data-testid=filters]`, "open") != "" || eval[bool](phone, `document.querySelector('[data-testid=filters]').open`) {
		t.Error("390 px: the listing's filters are open")
	}
	for _, sel := range []string{`[data-testid=facet][data-facet=category]`, `.search-filters button[type=submit]`} {
		if shown(phone, sel) {
			t.Errorf("390 px: %s shows with the filters folded", sel)
		}
	}
	if got := eval[string](phone, onScreen(`[data-testid=filters] summary`)); got != "ok" {
		t.Errorf("390 px: the filters' summary is %s", got)
	}
	if got, want := phone.text(`[data-testid=active-filters]`), "Books · $5 to $80 · In stock only · Price: low to high"; got != want {
		t.Errorf("390 px: the filters' summary says %q, want %q", got, want)
	}
	if got := eval[string](phone, onScreen(`[data-testid=item-card]`)); got != "ok" {
		t.Errorf("390 px: the first result is %s", got)
	}
	phone.screenshot("phone-listing")
	phone.click(`[data-testid=filters] summary`)
	phone.waitFor(`[data-testid=facet][data-facet=category]`)
	phone.waitFor(`.search-filters button[type=submit]`)
	phone.screenshot("phone-listing-filters")

	// The menu still holds the sections and the account's links.
	phone.navigate("/")
	if shown(phone, `.site-nav a[href="/articles"]`) || shown(phone, `.account a[href="/login"]`) {
		t.Error("390 px: the menu's links show with the menu closed")
	}
	phone.click(`.menu-button`)
	phone.waitFor(`.site-nav a[href="/articles"]`)
	phone.waitFor(`.account a[href="/login"]`)
	phone.screenshot("phone-menu")

	desk := b.freshTab(t, app)
	desk.do("desktop viewport", chromedp.EmulateViewport(1280, 900))
	desk.navigate(item)
	for _, sel := range []string{`.site-nav a[href="/articles"]`, `#site-search`, `[data-testid=cart-count]`, `.account a[href="/login"]`, `form.buy button[type=submit]`, `[data-testid=item-image][data-position="1"]`} {
		if got := eval[string](desk, onScreen(sel)); got != "ok" {
			t.Errorf("1280 px, item page: %s is %s", sel, got)
		}
	}
	if shown(desk, `.menu-button`) {
		t.Error("1280 px: the Menu button shows")
	}
	if !eval[bool](desk, `document.querySelector('[data-testid=item-image]').getBoundingClientRect().right <= document.querySelector('form.buy').getBoundingClientRect().left`) {
		t.Error("1280 px: the picture is not beside the buy form")
	}
	desk.screenshot("desktop-item")
	desk.navigate("/items")
	if got := eval[string](desk, onScreen(`[data-testid=facet][data-facet=category]`)); got != "ok" {
		t.Errorf("1280 px, listing: the departments are %s", got)
	}
	if !shown(desk, `.search-filters button[type=submit]`) {
		t.Error("1280 px, listing: the filter form is hidden")
	}
	if shown(desk, `[data-testid=filters] summary`) {
		t.Error("1280 px: the filters' summary shows")
	}
	desk.screenshot("desktop-listing")

	for _, width := range []int64{390, 1280} {
		desk.do("viewport", chromedp.EmulateViewport(width, 900))
		for _, path := range []string{item, "/items?category=Books&in_stock=1"} {
			if found := axeViolations(desk, path); found != "" {
				t.Errorf("%d px, %s: %s", width, path, found)
			}
		}
	}
}

// largePicture is the gallery's large picture as shown: the item-image
// elements that are rendered (one, if the gallery works).
type largePicture struct {
	Position, Src, Srcset, Alt string
	Width, Height, Shown       int
}

const largePictureJS = `Array.from(document.querySelectorAll('[data-testid=item-image]')).filter(e => e.checkVisibility()).map(e => ({
	Position: e.dataset.position, Src: e.currentSrc || e.src, Srcset: e.srcset, Alt: e.alt,
	Width: +e.getAttribute('width'), Height: +e.getAttribute('height'), Shown: Math.round(e.getBoundingClientRect().width)}))`

// TestBrowserGallery: on an item with two pictures, choosing the second
// thumbnail makes the second picture the large one, in place (no page
// load), with JavaScript on and off, at a desktop and a phone width; the
// first thumbnail brings the first back, and the arrow keys choose too.
// The large picture keeps its hook, its size attributes and its alt.
func TestBrowserGallery(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, nil)
	first, second := dressItem(t, b, app)
	check := func(tb *e2eTab, position string, want itemPicture, alt string) {
		t.Helper()
		var got []largePicture
		tb.waitUntil("picture "+position+" is the large one", e2eStepTimeout, func() (bool, string, error) {
			v, err := peek[[]largePicture](tb, largePictureJS)
			got = v
			return err == nil && len(v) == 1 && v[0].Position == position, fmt.Sprintf("%+v", v), err
		})
		p := got[0]
		if !strings.Contains(p.Src, want.Hash) || !strings.Contains(p.Srcset, want.Hash) {
			t.Errorf("the large picture %s shows %s (srcset %s), want picture %s", position, p.Src, p.Srcset, want.Hash)
		}
		if p.Width != want.Width || p.Height != want.Height || p.Alt != alt {
			t.Errorf("the large picture %s is %dx%d alt %q, want %dx%d alt %q", position, p.Width, p.Height, p.Alt, want.Width, want.Height, alt)
		}
		if p.Shown < 200 {
			t.Errorf("the large picture is %d px wide on screen: a thumbnail, not the large picture", p.Shown)
		}
	}
	for _, js := range []bool{true, false} {
		t.Run(fmt.Sprintf("javascript=%v", js), func(t *testing.T) {
			tb := b.freshTab(t, app)
			if !js {
				tb.disableScripts()
			}
			for _, width := range []int64{1280, 390} {
				tb.do("viewport", chromedp.EmulateViewport(width, 844))
				tb.navigate("/items/" + phoneItem)
				page := tb.path() // the item's readable URL
				check(tb, "1", first, phoneItemName)
				eval[bool](tb, `window.__samePage = true`)
				tb.click(`[data-testid=gallery-thumb][data-position="2"]`)
				check(tb, "2", second, phoneItemName+", picture 2")
				if !eval[bool](tb, `window.__samePage === true`) || tb.path() != page {
					t.Errorf("%d px: choosing a picture loaded another page (%s)", width, tb.path())
				}
				tb.screenshot(fmt.Sprintf("gallery-js-%v-%d", js, width))
				tb.click(`[data-testid=gallery-thumb][data-position="1"]`)
				check(tb, "1", first, phoneItemName)
			}
			// The keyboard: the radios take the arrow keys.
			tb.do("choose with the arrow key", chromedp.Focus(chromedp.CSS(`#picture-1`)), chromedp.KeyEvent(kb.ArrowRight))
			check(tb, "2", second, phoneItemName+", picture 2")
		})
	}
}
