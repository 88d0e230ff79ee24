package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/pagecache"
	"storefront/store/pagecache/pagebody"
)

// giveSizes gives an item the option Size in S, M, L and XL, 50 of each
// in stock, and returns the variants' ids by size.
func (a *app) giveSizes(item int64) map[string]int64 {
	a.t.Helper()
	set := catalog.VariantSet{Options: []string{"Size"}}
	for _, size := range []string{"S", "M", "L", "XL"} {
		set.Variants = append(set.Variants, catalog.Variant{SKU: fmt.Sprintf("ALSO-%d-%s", item, size), Values: []string{size}, Stock: 50})
	}
	if err := a.store.Catalog.AddDemoVariants(a.t.Context(), map[int64]catalog.VariantSet{item: set}); err != nil {
		a.t.Fatal(err)
	}
	vs, err := a.store.Catalog.Variants(a.t.Context(), item)
	if err != nil || len(vs) != 4 {
		a.t.Fatalf("item %d's variants %v: %v", item, vs, err)
	}
	out := map[string]int64{}
	for _, v := range vs {
		out[v.Values[0]] = v.ID
	}
	return out
}

// alsoBoughtLinks reads an item page's "also bought" list as
// "<item>:<variant> <href>" entries, in order, each href without its
// slug (readable URLs have their own test).
func alsoBoughtLinks(t *testing.T, body string) []string {
	t.Helper()
	i := strings.Index(body, `data-testid="also-bought"`)
	if i < 0 {
		t.Fatal("no also-bought list in page")
	}
	rest := body[i:]
	rest = rest[:strings.Index(rest, "</ol>")]
	var out []string
	for _, m := range regexp.MustCompile(`<li data-item-id="(\d+)" data-variant-id="(\d+)"[^>]*><a href="([^"]*)"`).FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1]+":"+m[2]+" "+unslug(m[3]))
	}
	return out
}

// An order of variants feeds each variant's page its own "also bought"
// list: what buyers of that variant bought, each entry naming its variant
// and linking to that variant's page (the page the picker leads to); the
// item's page without a variant chosen lists the items. The list is part
// of the cached page, which is kept per variant.
func TestAlsoBoughtPerVariantOnItemPage(t *testing.T) {
	a := cacheApp(t, 10000, time.Minute)
	shirt, jacket := a.giveSizes(8), a.giveSizes(18)
	a.setStock(7, 50)
	a.setStock(9, 50)
	order := func(lines ...[3]string) {
		c := a.client()
		for _, l := range lines {
			c.MustPost("/cart", url.Values{"item": {l[0]}, "variant": {l[1]}, "qty": {l[2]}}, http.StatusSeeOther)
		}
		if res := c.checkout(nil); res.Status != http.StatusSeeOther {
			t.Fatalf("checkout of %v: %d: %s", lines, res.Status, textOf(res.Body, "flash"))
		}
	}
	id := func(n int64) string { return fmt.Sprint(n) }
	order([3]string{"8", id(shirt["M"]), "1"}, [3]string{"18", id(jacket["L"]), "2"}, [3]string{"7", "", "1"})
	order([3]string{"8", id(shirt["M"]), "1"}, [3]string{"18", id(jacket["L"]), "1"})
	order([3]string{"8", id(shirt["S"]), "1"}, [3]string{"9", "", "1"})

	c := a.client()
	mPath := fmt.Sprintf("/items/8?variant=%d", shirt["M"])
	c.Get(mPath) // a new visitor's first page is not cached
	c.Get(mPath) // stored
	page := c.Get(mPath)
	xcache(t, page, "HIT")
	want := []string{fmt.Sprintf("18:%d /items/18?variant=%d", jacket["L"], jacket["L"]), "7:0 /items/7"}
	if got := alsoBoughtLinks(t, page.Body); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("M's page lists %v, want %v", got, want)
	}
	mustContain(t, page.Body, `data-of="Size: M"`, "Bought together with it in Size: M", `data-testid="also-bought-variant">(Size: L)`, `data-sku="ALSO-18-L"`)
	raw, err := a.store.Redis().Get(t.Context(), keys.Page(pagecache.VariantPageKey(8, shirt["M"]))).Bytes()
	if err != nil {
		t.Fatalf("M's page is not stored: %v", err)
	}
	p, err := pagebody.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if stored, _ := p.HTML(nil); !strings.Contains(unslug(string(stored)), fmt.Sprintf(`href="/items/18?variant=%d"`, jacket["L"])) {
		t.Error("the stored page of M lacks the link to the jacket in L")
	}

	// The link leads to the jacket in L, whose page names the shirt in M.
	l := c.MustGet(fmt.Sprintf("/items/18?variant=%d", jacket["L"]), http.StatusOK)
	if got := testids(l.Body, "item-sku", "data-sku"); len(got) != 1 || got[0] != "ALSO-18-L" {
		t.Errorf("the linked page shows SKU %v", got)
	}
	if got, want := alsoBoughtLinks(t, l.Body), []string{fmt.Sprintf("8:%d /items/8?variant=%d", shirt["M"], shirt["M"]), "7:0 /items/7"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("L's page lists %v, want %v", got, want)
	}
	// S was bought with item 9 only.
	if got, want := alsoBoughtLinks(t, c.MustGet(fmt.Sprintf("/items/8?variant=%d", shirt["S"]), http.StatusOK).Body), []string{"9:0 /items/9"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("S's page lists %v, want %v", got, want)
	}
	// The item's page, and a variant never bought, list the items.
	for _, path := range []string{"/items/8", fmt.Sprintf("/items/8?variant=%d", shirt["XL"])} {
		body := c.MustGet(path, http.StatusOK).Body
		if got, want := alsoBoughtLinks(t, body), []string{"18:0 /items/18", "9:0 /items/9", "7:0 /items/7"}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s lists %v, want %v", path, got, want)
		}
		mustContain(t, body, `data-of=""`, "Bought together with it<")
	}
	// An item without options lists items as before (equal counts in
	// reverse byte order, as Redis orders ties).
	if got, want := alsoBoughtLinks(t, c.MustGet("/items/7", http.StatusOK).Body), []string{"8:0 /items/8", "18:0 /items/18"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("item 7 lists %v, want %v", got, want)
	}
}

// unslug drops the slugs of item paths: /items/18-linen-shirt is /items/18.
func unslug(s string) string {
	return regexp.MustCompile(`(/items/\d+)-[a-z0-9-]+`).ReplaceAllString(s, "$1")
}
