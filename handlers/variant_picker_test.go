package handlers_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"storefront/views"
)

// The item page's buy form, its variants' offers and /api/items/:id, for
// item 28 of the demo catalog (Apparel in sizes S to XL and two colours,
// Amber and Black, XL at $2 more).

// variantsByValues reads an item's variants from the database: their
// values joined with "/" (such as "XL/Black") -> id.
func (a *app) variantsByValues(item int64) map[string]string {
	a.t.Helper()
	rows, err := a.store.DB().QueryContext(a.t.Context(), `SELECT id, option1, option2, option3 FROM item_variants WHERE item_id = $1`, item)
	if err != nil {
		a.t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var id int64
		var o [3]string
		if err := rows.Scan(&id, &o[0], &o[1], &o[2]); err != nil {
			a.t.Fatal(err)
		}
		out[strings.TrimRight(strings.Join(o[:], "/"), "/")] = itoa(id)
	}
	return out
}

// setVariant sets a variant's stock and "was" price, and its item's stock
// to the sum, as the admin's form would.
func (a *app) setVariant(id string, stock, compareAt int64) {
	a.t.Helper()
	db := a.store.DB()
	if _, err := db.ExecContext(a.t.Context(), `UPDATE item_variants SET stock = $1, compare_at_cents = $2 WHERE id = $3`, stock, compareAt, id); err != nil {
		a.t.Fatal(err)
	}
	if _, err := db.ExecContext(a.t.Context(), `UPDATE items SET stock = (SELECT SUM(stock) FROM item_variants v WHERE v.item_id = items.id)
		WHERE id = (SELECT item_id FROM item_variants WHERE id = $1)`, id); err != nil {
		a.t.Fatal(err)
	}
}

// buyForm is the item page's buy form, from its opening tag to its end.
func buyForm(t *testing.T, body string) string {
	t.Helper()
	m := regexp.MustCompile(`(?s)<form class="buy".*?</form>`).FindString(body)
	if m == "" {
		t.Fatal("the item page has no buy form")
	}
	return m
}

// The options' selects are part of the form that adds: what they say is
// what goes in the cart, whatever variant the page showed; a combination
// that is not offered, not complete or sold out is a 422 naming it and
// changes nothing.
func TestBuyFormAddsTheChosenOptions(t *testing.T) {
	a := variantApp(t)
	ids := a.variantsByValues(28)
	a.setVariant(ids["XL/Black"], 5, 0)
	a.setVariant(ids["L/Black"], 0, 0)
	c := a.client()
	page := c.MustGet("/items/28", http.StatusOK)
	form := buyForm(t, page.Body)
	mustContain(t, form, `action="/cart"`, `name="option-Size"`, `name="option-Colour"`, `data-show-choice`, `name="variant" value="`+ids["S/Amber"]+`"`)

	// The page shows S in Amber; the shopper chose XL in Black.
	chosen := url.Values{"item": {"28"}, "variant": {ids["S/Amber"]}, "option-Size": {"XL"}, "option-Colour": {"Black"}, "qty": {"2"}}
	res := c.Post("/cart", chosen)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("add XL in Black: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
	if got := c.cartHash(); len(got) != 1 || got["28:"+ids["XL/Black"]] != "2" {
		t.Fatalf("cart %v, want 2 of XL in Black (%s)", got, ids["XL/Black"])
	}
	var answer struct {
		Variant int64 `json:"variant"`
		Line    struct {
			SKU string `json:"sku"`
		} `json:"line"`
	}
	chosen.Set("qty", "3")
	if r := c.postJSON("/cart", chosen, &answer); r.Status != http.StatusOK || itoa(answer.Variant) != ids["XL/Black"] || answer.Line.SKU != "SF-000028-XL-BLACK" {
		t.Fatalf("JSON add: %d, variant %d, line %+v", r.Status, answer.Variant, answer.Line)
	}
	want := c.cartHash()

	for name, tc := range map[string]struct {
		form   url.Values
		status int
		msg    string
	}{
		"not offered":  {url.Values{"item": {"28"}, "option-Size": {"XL"}, "option-Colour": {"Purple"}, "qty": {"1"}}, 422, "is not made in Size: XL, Colour: Purple"},
		"sold out":     {url.Values{"item": {"28"}, "variant": {ids["S/Amber"]}, "option-Size": {"L"}, "option-Colour": {"Black"}, "qty": {"1"}}, 422, "(Size: L, Colour: Black) is sold out"},
		"incomplete":   {url.Values{"item": {"28"}, "option-Size": {"M"}, "qty": {"1"}}, 422, "Choose size and colour"},
		"too many":     {url.Values{"item": {"28"}, "option-Size": {"XL"}, "option-Colour": {"Black"}, "qty": {"6"}}, 422, "Only 5 of"},
		"no options":   {url.Values{"item": {"7"}, "option-Size": {"M"}, "qty": {"1"}}, 422, "not one of"},
		"option twice": {url.Values{"item": {"28"}, "option-Size": {"M", "L"}, "option-Colour": {"Black"}, "qty": {"1"}}, 400, "once"},
	} {
		res := c.Post("/cart", tc.form)
		if res.Status != tc.status || !strings.Contains(html.UnescapeString(res.Body), tc.msg) {
			t.Errorf("%s: %d, want %d with %q (%q)", name, res.Status, tc.status, tc.msg, textOf(res.Body, "field-error"))
		}
		if got := c.cartHash(); len(got) != len(want) || got["28:"+ids["XL/Black"]] != want["28:"+ids["XL/Black"]] {
			t.Errorf("%s: cart changed to %v", name, got)
		}
	}

	// Without JavaScript, "Show this choice" sends the same form with GET:
	// it leads to the chosen variant's page.
	res = c.Get("/items/28?item=28&variant=" + ids["S/Amber"] + "&option-Size=M&option-Colour=Black&qty=1")
	if res.Status != http.StatusSeeOther || unslug(res.Header.Get("Location")) != "/items/28?variant="+ids["M/Black"] {
		t.Errorf("show this choice: %d to %q", res.Status, res.Header.Get("Location"))
	}
}

// apiAnswer is /api/items/:id's answer as the page's script reads it.
type apiAnswer struct {
	ID        int64                `json:"id"`
	Stock     int64                `json:"stock"`
	Price     string               `json:"price"`
	StockText string               `json:"stock_text"`
	MaxQty    int64                `json:"max_qty"`
	Variants  []views.VariantOffer `json:"variants"`
	Variant   *views.VariantOffer  `json:"variant"`
}

// offersOnPage reads the offers an item page carries for its script.
func offersOnPage(t *testing.T, body string) []views.VariantOffer {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script id="item-offers" type="application/json">(.*?)</script>`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("the item page carries no offers")
	}
	var out []views.VariantOffer
	if err := json.Unmarshal([]byte(m[1]), &out); err != nil {
		t.Fatalf("offers: %v", err)
	}
	return out
}

// The API answers for every variant of an item what the item page shows
// for that variant with JavaScript off (price, "was" price, stock, SKU),
// from the database and from the row cache; the offers the page carries
// are the same. ?variant= answers one; an id that is not the item's is a
// 404. An item without options answers its own figures.
func TestAPIAnswersWhatThePageShowsPerVariant(t *testing.T) {
	a := variantApp(t)
	ids := a.variantsByValues(28)
	a.setVariant(ids["M/Amber"], 3, 30000) // "was" $300.00
	a.setVariant(ids["L/Black"], 0, 0)     // sold out
	c := a.client()
	admin := a.client()
	admin.signInAdmin()
	for _, from := range []string{"MISS", "HIT"} {
		if from == "HIT" {
			if res := admin.Post("/admin/rowcache", url.Values{"row": {"28"}, "delay": {"60"}}); res.Status != 303 {
				t.Fatalf("schedule the row: %d", res.Status)
			}
			if _, err := a.store.Catalog.CacheRows(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		res := c.Get("/api/items/28")
		var got apiAnswer
		if res.Status != 200 || res.Header.Get("X-Row-Cache") != from || json.Unmarshal([]byte(res.Body), &got) != nil {
			t.Fatalf("%s: %d %q %s", from, res.Status, res.Header.Get("X-Row-Cache"), res.Body)
		}
		if len(got.Variants) != 8 || got.Price != "" || got.StockText != "" {
			t.Fatalf("%s: %d variants, item price %q stock %q: an item with options sells only through its variants", from, len(got.Variants), got.Price, got.StockText)
		}
		for _, o := range got.Variants {
			page := c.MustGet("/items/28?variant="+itoa(o.ID), http.StatusOK).Body
			shown := map[string]string{
				"price": textOf(page, "item-price"), "was": wasPrice(page),
				"stock": textOf(page, "item-stock"), "sku": testids(page, "item-sku", "data-sku")[0],
			}
			said := map[string]string{"price": o.Price, "was": o.CompareAt, "stock": o.StockText, "sku": o.SKU}
			for k := range shown {
				if shown[k] != said[k] {
					t.Errorf("%s: variant %d (%v): the page shows %s %q, the API says %q", from, o.ID, o.Values, k, shown[k], said[k])
				}
			}
			if from == "MISS" {
				if onPage := offersOnPage(t, page); len(onPage) != len(got.Variants) {
					t.Errorf("the page carries %d offers, the API %d", len(onPage), len(got.Variants))
				} else {
					for i := range onPage {
						if !sameOffer(onPage[i], got.Variants[i]) {
							t.Errorf("offer %d: page %+v, API %+v", i, onPage[i], got.Variants[i])
						}
					}
				}
			}
		}
	}
	var one apiAnswer
	if r := c.getJSON("/api/items/28?variant="+ids["M/Amber"], &one); r != 200 || one.Variant == nil || one.Variant.CompareAt != "$300.00" || one.Variant.StockText != "Only 3 left" {
		t.Errorf("?variant=M/Amber: %d %+v", r, one.Variant)
	}
	other := a.variantsByValues(8)["M"]
	for _, bad := range []string{other, "999999", "x", "0"} {
		if res := c.Get("/api/items/28?variant=" + bad); res.Status != http.StatusNotFound {
			t.Errorf("?variant=%s: %d, want 404", bad, res.Status)
		}
	}
	var plain apiAnswer
	a.setStock(7, 4)
	if r := c.getJSON("/api/items/7", &plain); r != 200 || plain.Price == "" || plain.StockText != "Only 4 left" || plain.MaxQty != 4 || len(plain.Variants) != 0 {
		t.Errorf("item 7: %d %+v", r, plain)
	}
	if page := c.MustGet("/items/7", http.StatusOK).Body; textOf(page, "item-price") != plain.Price || strings.Contains(page, `id="item-offers"`) {
		t.Errorf("item 7's page shows %q, the API says %q", textOf(page, "item-price"), plain.Price)
	}
}

// wasPrice is the "was" price an item page shows, "" for none.
func wasPrice(page string) string {
	m := regexp.MustCompile(`data-compare-at-price>([^<]*)<`).FindStringSubmatch(page)
	if m == nil || regexp.MustCompile(`data-testid="compare-at" hidden`).MatchString(page) {
		return ""
	}
	return strings.TrimSpace(m[1])
}

// sameOffer compares two offers field by field (Values is a slice).
func sameOffer(a, b views.VariantOffer) bool {
	return a.ID == b.ID && a.SKU == b.SKU && strings.Join(a.Values, "/") == strings.Join(b.Values, "/") && a.Price == b.Price &&
		a.PriceCents == b.PriceCents && a.CompareAt == b.CompareAt && a.Stock == b.Stock && a.StockText == b.StockText &&
		a.MaxQty == b.MaxQty && a.Picture == b.Picture
}

// getJSON reads JSON from path into v and returns the status.
func (c *client) getJSON(path string, v any) int {
	c.a.t.Helper()
	res := c.Get(path, "Accept", "application/json")
	if res.Status == 200 {
		if err := json.Unmarshal([]byte(res.Body), v); err != nil {
			c.a.t.Fatalf("%s: %v", path, err)
		}
	}
	return res.Status
}

// A cache-buster or any unknown parameter never changes which variant an
// item page shows: for a guest and a member, with the item's default page
// already cached, in either order of the parameters.
func TestCacheBusterKeepsTheChosenVariant(t *testing.T) {
	a := variantApp(t)
	guest := a.client()
	member := a.client()
	member.Register("picker")
	m := a.variantsByValues(8)["M"]
	guest.MustGet("/items/8", http.StatusOK)
	guest.MustGet("/items/8", http.StatusOK)
	for who, c := range map[string]*client{"guest": guest, "member": member} {
		for _, q := range []string{"?variant=" + m + "&_=1", "?_=1&variant=" + m, "?variant=" + m + "&utm_source=x", "?_=&variant=" + m + "&x=1", "?variant=" + m} {
			res := c.MustGet("/items/8"+q, http.StatusOK)
			if got := testids(res.Body, "item-sku", "data-sku"); len(got) != 1 || got[0] != "SF-000008-M" {
				t.Errorf("%s: %s (X-Cache %s) shows %v, want SF-000008-M", who, q, res.Header.Get("X-Cache"), got)
			}
		}
	}
}

// With two sizes of one item in the cart, the JSON answer of a change is
// about the line changed, as the cart page shows it (its options, its
// quantity's bound, its problem), and the page labels each line's fields
// with its size.
func TestCartJSONAnswersForItsLine(t *testing.T) {
	a := variantApp(t)
	ids := a.variantsByValues(8)
	c := a.client()
	for _, size := range []string{"S", "M"} {
		c.MustPost("/cart", url.Values{"item": {"8"}, "variant": {ids[size]}, "qty": {"1"}}, http.StatusSeeOther)
	}
	a.setVariant(ids["M"], 4, 0)
	var got struct {
		Item, Variant int64
		Line          *struct {
			VariantID int64  `json:"variant_id"`
			Variant   string `json:"variant"`
			Quantity  int64  `json:"quantity"`
			MaxQty    int64  `json:"max_qty"`
			Problem   string `json:"problem"`
		} `json:"line"`
		Lines int `json:"lines"`
	}
	if r := c.postJSON("/cart", url.Values{"item": {"8"}, "variant": {ids["M"]}, "qty": {"3"}}, &got); r.Status != 200 || got.Line == nil ||
		itoa(got.Variant) != ids["M"] || itoa(got.Line.VariantID) != ids["M"] || got.Line.Variant != "Size: M" || got.Line.Quantity != 3 || got.Line.MaxQty != 4 || got.Line.Problem != "" {
		t.Fatalf("setting M to 3: %d %+v %+v", r.Status, got, got.Line)
	}
	a.setVariant(ids["M"], 2, 0)
	got.Line = nil
	if r := c.postJSON("/cart", url.Values{"item": {"8"}, "variant": {ids["S"]}, "qty": {"0"}}, &got); r.Status != 200 || got.Line != nil ||
		itoa(got.Variant) != ids["S"] || got.Lines != 1 {
		t.Fatalf("removing S: %d %+v", r.Status, got)
	}
	page := c.MustGet("/cart", http.StatusOK).Body
	mustContain(t, page, "Quantity of "+textOfItem(t, page)+" (Size: M)", `aria-label="Remove `)
	if p := testids(page, "line-problem", ""); len(p) != 1 {
		t.Errorf("the page shows %d problems, want M's (3 in the cart, 2 left)", len(p))
	}
	var again struct {
		Line *struct {
			Problem string `json:"problem"`
		} `json:"line"`
	}
	if r := c.postJSON("/cart", url.Values{"item": {"8"}, "variant": {ids["M"]}, "qty": {"2"}}, &again); r.Status != 200 || again.Line == nil || again.Line.Problem != "" {
		t.Errorf("lowering M to the stock left: %d %+v", r.Status, again.Line)
	}
}

// textOfItem is the name of the first cart line's item.
func textOfItem(t *testing.T, page string) string {
	t.Helper()
	m := regexp.MustCompile(`<td class="line-item">.*?<a href="[^"]*">([^<]*)</a>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no cart line")
	}
	return html.UnescapeString(m[1])
}

// A variant with a picture of its own shows it on its cart line, its
// checkout review line and its order line; a variant without shows the
// item's main picture.
func TestVariantLinesShowTheVariantsPicture(t *testing.T) {
	a := variantApp(t)
	ctx := t.Context()
	pos := 0
	var hashes []string
	for _, w := range []int{400, 500} {
		img, err := a.store.Media.ProcessImage(ctx, pngBytes(t, testPicture(w, w)), 5<<20)
		if err != nil {
			t.Fatal(err)
		}
		if pos, err = a.store.Media.AddItemImage(ctx, 28, img); err != nil {
			t.Fatal(err)
		}
		hashes = append(hashes, img.Hash)
	}
	ids := a.variantsByValues(28)
	if _, err := a.store.DB().ExecContext(ctx, `UPDATE item_variants SET picture = $1, stock = 5 WHERE id = $2`, pos, ids["M/Black"]); err != nil {
		t.Fatal(err)
	}
	a.setVariant(ids["S/Amber"], 5, 0)
	c := a.client()
	for _, v := range []string{"M/Black", "S/Amber"} {
		c.MustPost("/cart", url.Values{"item": {"28"}, "variant": {ids[v]}, "qty": {"1"}}, http.StatusSeeOther)
	}
	thumbs := func(page, hook string) map[string]string {
		t.Helper()
		out := map[string]string{}
		re := regexp.MustCompile(`(?s)<tr data-testid="` + hook + `"[^>]*data-variant-id="([0-9]+)".*?<img class="thumb" data-testid="item-thumb" src="([^"]*)"`)
		for _, m := range re.FindAllStringSubmatch(page, -1) {
			out[m[1]] = m[2]
		}
		return out
	}
	own := hashes[len(hashes)-1]
	check := func(where string, got map[string]string) {
		t.Helper()
		if !strings.Contains(got[ids["M/Black"]], own) {
			t.Errorf("%s: M in Black shows %q, want its own picture %s", where, got[ids["M/Black"]], own)
		}
		if got[ids["S/Amber"]] == "" || strings.Contains(got[ids["S/Amber"]], own) {
			t.Errorf("%s: S in Amber shows %q, want the item's main picture", where, got[ids["S/Amber"]])
		}
	}
	check("cart", thumbs(c.MustGet("/cart", http.StatusOK).Body, "cart-line"))
	review, _ := c.review()
	check("review", thumbs(review.Body, "review-line"))
	res := c.checkout(nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", res.Status)
	}
	check("order", thumbs(c.MustGet(res.Header.Get("Location"), http.StatusOK).Body, "order-line"))
}
