package apptest_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"storefront/handlers/apptest"
	"storefront/store/catalog"
	"storefront/wiring"
)

// The item page's variants in a real browser, at a phone's width and a
// laptop's: choosing options switches the page to the chosen variant in
// place, as the server renders that variant's page; the buy form adds
// what the selects say, with JavaScript on and off; the live refresh
// keeps each variant's own price, "was" price and stock.

// pickItem is the demo item these tests dress: Apparel in sizes S to XL
// and two colours, Amber and Black (XL at $2 more).
const pickItem = 28

// pickVariants are pickItem's variants by their values ("XL/Black").
type pickVariants map[string]int64

func (p pickVariants) id(values string) string { return fmt.Sprint(p[values]) }

// dressVariants gives pickItem the cases the tests need, as the admin's
// options form would (the change purges its pages): XL in Black 5 in
// stock, L in Black sold out, M in Amber at "was" $300.00 with 3 left and
// its own picture (a second one the item gets), and a third colour, Green,
// only in S, so that XL in Green is not offered.
func dressVariants(t *testing.T, app *browserApp) pickVariants {
	t.Helper()
	ctx := t.Context()
	it, err := app.Store.Catalog.Item(ctx, pickItem)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := app.Store.Catalog.Variants(ctx, pickItem)
	if err != nil || len(vs) != 8 {
		t.Fatalf("item %d has %d variants (%v), want sizes S to XL in two colours", pickItem, len(vs), err)
	}
	pictures := 0
	for _, shade := range []uint8{60, 200} {
		img, err := app.Store.Media.ProcessImage(ctx, pngOf(t, 640, 480, shade), 5<<20)
		if err != nil {
			t.Fatal(err)
		}
		if pictures, err = app.Store.Media.AddItemImage(ctx, pickItem, img); err != nil {
			t.Fatal(err)
		}
	}
	set := catalog.VariantSet{Options: it.Options}
	for _, v := range vs {
		switch strings.Join(v.Values, "/") {
		case "XL/Black":
			v.Stock = 5
		case "L/Black":
			v.Stock = 0
		case "M/Amber":
			v.Stock, v.CompareAtCents, v.Picture = 3, 30000, pictures
		}
		set.Variants = append(set.Variants, v)
	}
	set.Variants = append(set.Variants, catalog.Variant{SKU: "SF-000028-S-GREEN", Values: []string{"S", "Green"}, Stock: 2})
	if err := app.Store.Catalog.SaveVariants(ctx, pickItem, set); err != nil {
		t.Fatal(err)
	}
	return variantIDs(t, app, pickItem)
}

// variantIDs reads an item's variants from the app's database.
func variantIDs(t *testing.T, app *browserApp, item int64) pickVariants {
	t.Helper()
	vs, err := app.Store.Catalog.Variants(t.Context(), item)
	if err != nil {
		t.Fatal(err)
	}
	out := pickVariants{}
	for _, v := range vs {
		out[strings.Join(v.Values, "/")] = v.ID
	}
	return out
}

// pngOf is a plain picture of one shade.
func pngOf(t *testing.T, w, h int, shade uint8) []byte {
	t.Helper()
	pic := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			pic.Set(x, y, color.RGBA{shade, uint8(x * 255 / w), 120, 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, pic); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// buyState is what a person sees of an item page's buy box: the price,
// "was" price, stock, SKU, what the form says about the choice, the large
// picture, the selects, the variant and quantity bound the form sends.
var buyState = stateJS(`{
	price: text('[data-testid="item-price"]'), was: text('[data-testid="compare-at"]'),
	stock: text('[data-testid="item-stock"]'), sku: text('[data-testid="item-sku"]'), skuData: attr('[data-testid="item-sku"]', "data-sku"),
	status: text('[data-testid="choice-status"]'),
	picture: (e => e ? e.getAttribute("data-position") : "")([...document.querySelectorAll('[data-testid="item-image"]')].find(shown)),
	options: [...document.querySelectorAll('form.buy select')].map(s => s.name + "=" + s.value).join("&"),
	variant: val('form.buy input[name="variant"]'), max: attr('form.buy input[name="qty"]', "max")
}`)

// addDisabled reports whether the buy form's add button is off.
func addDisabled(tb *e2eTab) bool {
	tb.t.Helper()
	return eval[bool](tb, `document.querySelector('[data-testid="add-to-cart"]').disabled`)
}

// cartLinesState is the cart page's lines as item-variant x quantity.
func cartVariants(tb *e2eTab) string {
	tb.t.Helper()
	return eval[string](tb, `[...document.querySelectorAll('[data-testid="cart-line"]')].map(r =>
		r.dataset.itemId + "-" + r.dataset.variantId + " x" + r.dataset.qty + " " + r.dataset.sku).join(", ")`)
}

// TestBrowserPickAndAdd: with JavaScript, choosing XL in Black on a page
// that shows S in Amber switches it in place to XL in Black (price, stock,
// SKU, the URL's ?variant=) exactly as the server renders that variant's
// page, and Add to cart adds XL in Black; a sold-out choice is shown as
// the server shows it and cannot be added; a combination not offered says
// so. Without JavaScript the selects are part of the form that adds: XL in
// Black goes in the cart, a sold-out choice is refused with its name, and
// "Show this choice" loads the chosen variant's page. An item with one
// option (item 8, sizes) switches the same way. At 390 and 1280 px.
func TestBrowserPickAndAdd(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"}, func(o *wiring.Options) { o.SeedVariants = true })
	ids := dressVariants(t, app)
	sizes := variantIDs(t, app, 8)
	page := app.readable(t, fmt.Sprintf("/items/%d", pickItem))
	for _, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			tb := b.freshTab(t, app)
			tb.size(s)
			plain := tb.plainTab(t, s)

			tb.navigate(page)
			eval[bool](tb, `window.e2eNotReloaded = true`)
			if got := tb.attr(`[data-testid="item-sku"]`, "data-sku"); got != "SF-000028-S-AMBER" {
				t.Fatalf("the page shows %s first, want S in Amber", got)
			}
			if eval[bool](tb, `(e => !!e && e.checkVisibility())(document.querySelector("[data-show-choice]"))`) {
				t.Error(`"Show this choice" is shown with JavaScript on: choosing shows the choice at once`)
			}
			tb.choose("#option-Size", "XL")
			tb.choose("#option-Colour", "Black")
			tb.waitPath(page + "?variant=" + ids.id("XL/Black"))
			sameAsServer(t, tb, plain, page+"?variant="+ids.id("XL/Black"), buyState, "XL in Black chosen")
			if addDisabled(tb) {
				t.Error("Add to cart is off for XL in Black, which is in stock")
			}
			tb.screenshot("pick-xl-black-" + s.name)
			tb.fill("#qty", "2")
			tb.click(`[data-testid="add-to-cart"]`)
			tb.waitText(`[data-testid="cart-count"]`, "2")
			if !eval[bool](tb, `window.e2eNotReloaded === true`) {
				t.Error("choosing and adding reloaded the page; the scripts should work in place")
			}

			// Sold out: shown as the server shows it, and not addable.
			tb.choose("#option-Size", "L")
			tb.waitPath(page + "?variant=" + ids.id("L/Black"))
			sameAsServer(t, tb, plain, page+"?variant="+ids.id("L/Black"), buyState, "L in Black (sold out) chosen")
			if !addDisabled(tb) {
				t.Error("Add to cart is on for L in Black, which is sold out")
			}
			// Not offered: the page says so, and nothing can be added.
			tb.choose("#option-Size", "XL")
			tb.choose("#option-Colour", "Green")
			tb.waitText(`[data-testid="choice-status"]`, "This combination is not offered. Choose another.")
			if !addDisabled(tb) {
				t.Error("Add to cart is on for XL in Green, which is not offered")
			}
			if got := tb.path(); got != page+"?variant="+ids.id("XL/Black") {
				t.Errorf("the URL became %s for a combination not offered", got)
			}

			// One option: item 8 in sizes.
			item8 := app.readable(t, "/items/8")
			tb.navigate(item8)
			tb.choose("#option-Size", "L")
			tb.waitPath(item8 + "?variant=" + sizes.id("L"))
			sameAsServer(t, tb, plain, item8+"?variant="+sizes.id("L"), buyState, "item 8 in L chosen")

			tb.navigate("/cart")
			tb.waitFor(`[data-testid="cart-line"]`)
			if got, want := cartVariants(tb), fmt.Sprintf("%d-%s x2 SF-000028-XL-BLACK", pickItem, ids.id("XL/Black")); got != want {
				t.Errorf("cart %q, want %q", got, want)
			}
			if got := tb.text(`[data-testid="cart-line"] [data-testid="line-variant"]`); got != "Size: XL, Colour: Black" {
				t.Errorf("the cart line names %q", got)
			}

			// Without JavaScript, in a browser of its own.
			nojs := b.freshTab(t, app)
			nojs.disableScripts()
			nojs.size(s)
			nojs.navigate(page)
			nojs.fill("#option-Size", "XL")
			nojs.fill("#option-Colour", "Black")
			nojs.fill("#qty", "1")
			nojs.click(`[data-testid="add-to-cart"]`)
			nojs.waitPath("/cart")
			nojs.waitFor(`[data-testid="cart-line"]`)
			if got, want := cartVariants(nojs), fmt.Sprintf("%d-%s x1 SF-000028-XL-BLACK", pickItem, ids.id("XL/Black")); got != want {
				t.Errorf("without JavaScript the cart holds %q, want %q", got, want)
			}
			nojs.navigate(page)
			nojs.fill("#option-Size", "L")
			nojs.fill("#option-Colour", "Black")
			nojs.click(`[data-testid="add-to-cart"]`)
			nojs.waitFor(`[role="alert"][data-testid="field-error"]`)
			if got := nojs.text(`[role="alert"][data-testid="field-error"]`); !strings.Contains(got, "(Size: L, Colour: Black) is sold out") {
				t.Errorf("adding a sold-out choice without JavaScript says %q", got)
			}
			if got := cartVariants(nojs); !strings.HasSuffix(got, " x1 SF-000028-XL-BLACK") || strings.Contains(got, ",") {
				t.Errorf("after the refused add the cart holds %q", got)
			}
			nojs.navigate(page)
			nojs.fill("#option-Size", "M")
			nojs.fill("#option-Colour", "Black")
			nojs.click("[data-show-choice]")
			nojs.waitPath(page + "?variant=" + ids.id("M/Black"))
			nojs.waitAttr(`[data-testid="item-sku"]`, "data-sku", "SF-000028-M-BLACK")
			nojs.screenshot("pick-no-javascript-" + s.name)
		})
	}
}

// TestBrowserLivePriceAndStock: the item page's live refresh shows each
// variant's own figures, as the server renders them: the shown variant's
// price and stock (not the item's), a "was" price kept, a sold-out variant
// still sold out; a variant with its own picture shows it large; and a
// change made behind the page's back reaches it for the variant on screen.
// At 390 and 1280 px.
func TestBrowserLivePriceAndStock(t *testing.T) {
	apptest.Parallel(t)
	b := newBrowser(t)
	app := startBrowserApp(t, map[string]string{"COOKIE_SECURE": "false"}, func(o *wiring.Options) { o.SeedVariants = true })
	ids := dressVariants(t, app)
	page := app.readable(t, fmt.Sprintf("/items/%d", pickItem))
	live := `[data-testid="item-stock"][data-live="1"]`
	for i, s := range screens {
		t.Run(s.name, func(t *testing.T) {
			tb := b.freshTab(t, app)
			tb.size(s)
			plain := tb.plainTab(t, s)

			// Each variant's page, once the live refresh answered.
			for _, v := range []string{"S/Amber", "XL/Amber", "M/Amber", "L/Black"} {
				path := page + "?variant=" + ids.id(v)
				tb.navigate(path)
				tb.waitFor(live)
				sameAsServer(t, tb, plain, path, buyState, v+"'s page after the live refresh")
			}
			// Choices made on the page, then refreshed.
			tb.navigate(page)
			tb.waitFor(live)
			for _, v := range []string{"M/Amber", "XL/Amber", "L/Black", "M/Amber"} {
				values := strings.Split(v, "/")
				tb.choose("#option-Size", values[0])
				tb.choose("#option-Colour", values[1])
				tb.waitPath(page + "?variant=" + ids.id(v))
				eval[bool](tb, `(() => { document.querySelector('[data-testid="item-stock"]').removeAttribute("data-live");
					document.dispatchEvent(new Event("visibilitychange")); return true })()`)
				tb.waitFor(live)
				sameAsServer(t, tb, plain, page+"?variant="+ids.id(v), buyState, v+" chosen, then refreshed")
			}
			tb.screenshot("live-was-price-" + s.name)

			// Two sold behind the page's back: the refresh shows one left,
			// as the server now renders it.
			ctx := t.Context()
			vs, err := app.Store.Catalog.Variants(ctx, pickItem)
			if err != nil {
				t.Fatal(err)
			}
			it, err := app.Store.Catalog.Item(ctx, pickItem)
			if err != nil {
				t.Fatal(err)
			}
			set := catalog.VariantSet{Options: it.Options, Variants: vs}
			for j := range set.Variants {
				if set.Variants[j].ID == ids["M/Amber"] {
					set.Variants[j].Stock = int64(1 + i)
				}
			}
			if err := app.Store.Catalog.SaveVariants(ctx, pickItem, set); err != nil {
				t.Fatal(err)
			}
			eval[bool](tb, `(() => { document.dispatchEvent(new Event("visibilitychange")); return true })()`)
			tb.waitText(`[data-testid="item-stock"]`, fmt.Sprintf("Only %d left", 1+i))
			sameAsServer(t, tb, plain, page+"?variant="+ids.id("M/Amber"), buyState, "M in Amber after a sale behind the page's back")
		})
	}
}
