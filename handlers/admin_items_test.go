package handlers_test

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"storefront/store/orders"
	"storefront/store/storetest"
)

// TestAdminItemList lists, searches and pages every item, and only for the
// admin.
func TestAdminItemList(t *testing.T) {
	a := newApp(t, nil, nil)
	admin := a.client()
	admin.signInAdmin()
	res := admin.Get("/admin/items")
	ids := testids(res.Body, "admin-item-row", "data-item-id")
	if res.Status != http.StatusOK || len(ids) != 50 || ids[0] != "1" || ids[49] != "50" {
		t.Fatalf("first page: %d, %d rows from %v", res.Status, len(ids), ids[:min(3, len(ids))])
	}
	if ids := testids(admin.Get("/admin/items?page=2").Body, "admin-item-row", "data-item-id"); len(ids) != 50 || ids[0] != "51" {
		t.Fatalf("second page %v", ids[:min(3, len(ids))])
	}
	it, err := a.store.Catalog.Item(t.Context(), 42)
	if err != nil {
		t.Fatal(err)
	}
	word := strings.Fields(it.Name)[len(strings.Fields(it.Name))-1]
	found := testids(admin.Get("/admin/items?q="+url.QueryEscape(strings.ToUpper(it.Name))).Body, "admin-item-row", "data-item-id")
	if len(found) == 0 || found[0] != "42" {
		t.Errorf("search for %q: %v", it.Name, found)
	}
	if found := testids(admin.Get("/admin/items?q=42").Body, "admin-item-row", "data-item-id"); !contains(found, "42") {
		t.Errorf("search by number: %v", found)
	}
	for _, id := range testids(admin.Get("/admin/items?q="+url.QueryEscape(word)).Body, "admin-item-row", "data-item-id") {
		got := storetest.Must(a.store.Catalog.Item(t.Context(), parseID(t, id)))(t)
		if !strings.Contains(strings.ToLower(got.Name), strings.ToLower(word)) {
			t.Errorf("search %q listed %q", word, got.Name)
		}
	}
	if res := admin.Get("/admin/items?q=%25_nothing_%25"); res.Status != http.StatusOK || len(testids(res.Body, "admin-item-row", "")) != 0 {
		t.Errorf("wildcards are literal: %d rows", len(testids(res.Body, "admin-item-row", "")))
	}
	if res := admin.Get("/admin/items?page=0"); res.Status != http.StatusBadRequest {
		t.Errorf("page 0: %d", res.Status)
	}
	if res := admin.Get("/admin/items?page=9999"); res.Status != http.StatusOK || len(testids(res.Body, "admin-item-row", "")) != 0 {
		t.Errorf("page past the end: %d", res.Status)
	}
	shopper := a.client()
	shopper.Register("nosy")
	if res := shopper.Get("/admin/items"); res.Status != http.StatusForbidden {
		t.Errorf("shopper: %d", res.Status)
	}
	if res := a.client().Get("/admin/items"); res.Status != http.StatusSeeOther {
		t.Errorf("anonymous: %d", res.Status)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func parseID(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("not an id: %q", s)
	}
	return n
}

// TestAdminCreateAndEditItem: a bad form is a 422 with the form kept and
// nothing created; a good one creates the item (in listings and search at
// once); an edit changes its category; each writes an audit line.
func TestAdminCreateAndEditItem(t *testing.T) {
	a, logs := newLoggedApp(t)
	admin := a.client()
	admin.signInAdmin()
	if res := admin.Get("/admin/items/new"); res.Status != http.StatusOK || !strings.Contains(res.Body, `name="category"`) {
		t.Fatalf("new item form: %d", res.Status)
	}
	var before int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM items`).Scan(&before); err != nil {
		t.Fatal(err)
	}
	bad := url.Values{"name": {"Zyxel <b>Lamp</b>"}, "price": {"12.345"}, "stock": {"-1"}, "category": {""}, "description": {"ok"}}
	res := admin.Post("/admin/items/new", bad)
	if res.Status != http.StatusUnprocessableEntity || len(testids(res.Body, "field-error", "")) != 3 {
		t.Fatalf("bad form: %d with %d field errors", res.Status, len(testids(res.Body, "field-error", "")))
	}
	mustContain(t, res.Body, `value="Zyxel &lt;b&gt;Lamp&lt;/b&gt;"`, `value="12.345"`)
	var after int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM items`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after != before {
		t.Fatalf("a bad form created an item")
	}
	good := url.Values{"name": {"Zyxel <b>Lamp</b>"}, "price": {"12.34"}, "stock": {"7"}, "category": {"Lighting"}, "description": {"Bright."}}
	res = admin.Post("/admin/items/new", good)
	loc := res.Header.Get("Location")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(loc, "/admin/items/") {
		t.Fatalf("create: %d to %q", res.Status, loc)
	}
	id := parseID(t, strings.TrimPrefix(loc, "/admin/items/"))
	it, err := a.store.Catalog.Item(t.Context(), id)
	if err != nil || it.Name != "Zyxel <b>Lamp</b>" || it.PriceCents != 1234 || it.Stock != 7 || it.Category != "Lighting" {
		t.Fatalf("created %+v, %v", it, err)
	}
	shopper := a.client()
	if ids := testids(shopper.Get("/items?q=zyxel").Body, "item-card", "data-item-id"); !contains(ids, itoa(id)) {
		t.Errorf("search does not find the new item: %v", ids)
	}
	page := shopper.Get("/items/" + itoa(id))
	if page.Status != http.StatusOK || strings.Contains(page.Body, "<b>Lamp</b>") {
		t.Errorf("new item page: %d (name must be escaped)", page.Status)
	}
	// Edit: the category moves, the page shows it at once.
	edit := url.Values{"name": {"Zyxel Lamp"}, "price": {"10.00"}, "stock": {"3"}, "category": {"Home"}, "description": {"Bright."}}
	if res := admin.Post("/admin/items/"+itoa(id), edit); res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.Status)
	}
	if it := storetest.Must(a.store.Catalog.Item(t.Context(), id))(t); it.Category != "Home" || it.PriceCents != 1000 {
		t.Errorf("after edit %+v", it)
	}
	if ids := testids(shopper.Get("/items?category=Home&q=zyxel").Body, "item-card", "data-item-id"); !contains(ids, itoa(id)) {
		t.Errorf("the item is not in its new category: %v", ids)
	}
	form := admin.Get("/admin/items/" + itoa(id))
	mustContain(t, form.Body, `name="category"`, `value="Home"`, `data-testid="item-images-admin"`, `data-testid="archive-item"`)
	if got := logs.audited("action", "target"); got != "create item item "+itoa(id)+",edit item item "+itoa(id) {
		t.Errorf("audit %s", got)
	}
}

// TestArchivedItemLeavesTheShop: archiving takes an item out of listings,
// search, category counts and home lists, its (cached) page answers 410,
// carts and checkouts refuse it, past orders keep it; restoring brings it
// all back.
func TestArchivedItemLeavesTheShop(t *testing.T) {
	a, logs := newLoggedApp(t)
	ctx := t.Context()
	a.setStock(33, 20)
	it := storetest.Must(a.store.Catalog.Item(ctx, 33))(t)
	shopper := a.client()
	shopper.Register("ann")
	orderID := shopper.orderFor("ann", 33, 1)
	// The page is cached and a cart holds the item.
	cached := false
	for i := 0; i < 4 && !cached; i++ { // the first views clear the flash, which is not stored
		cached = shopper.Get("/items/33").Header.Get("X-Cache") == "HIT"
	}
	if !cached {
		t.Fatal("the item page never came from the cache")
	}
	if res := shopper.setQty("33", "2"); res.Status != http.StatusSeeOther {
		t.Fatalf("cart: %d", res.Status)
	}
	catCount := func() string {
		page := a.client().Get("/items?category=" + url.QueryEscape(it.Category))
		return textOf(page.Body, "result-count")
	}
	countBefore := catCount()

	admin := a.client()
	admin.signInAdmin()
	if res := admin.Post("/admin/items/33/archive", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("archive: %d", res.Status)
	}
	for _, c := range []*client{shopper, a.client()} {
		if res := c.Get("/items/33"); res.Status != http.StatusGone {
			t.Errorf("archived page: %d (X-Cache %s)", res.Status, res.Header.Get("X-Cache"))
		}
	}
	if ids := testids(a.client().Get("/items?q="+url.QueryEscape(it.Name)).Body, "item-card", "data-item-id"); contains(ids, "33") {
		t.Error("search still finds the archived item")
	}
	if got := catCount(); got == countBefore {
		t.Errorf("category count still %s", got)
	}
	if res := shopper.setQty("33", "3"); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("adding an archived item: %d", res.Status)
	}
	_, err := shopper.checkoutAs("ann")
	var ce *orders.CheckoutError
	if !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Reason != orders.ProblemGone {
		t.Fatalf("checkout of an archived item: %v", err)
	}
	if a.stockOf(33) != 19 {
		t.Errorf("stock moved: %d", a.stockOf(33))
	}
	// The past order still shows it.
	if page := shopper.Get("/orders/" + itoa(orderID)); !contains(testids(page.Body, "order-line", "data-item-id"), "33") {
		t.Error("the past order lost its line")
	}
	// The admin still sees and edits it.
	rows := admin.Get("/admin/items?q=33")
	if got := testids(rows.Body, "admin-item-row", "data-archived"); len(got) == 0 || !strings.Contains(strings.Join(got, ","), "true") {
		t.Errorf("admin list archived flags %v", got)
	}
	if res := admin.Post("/admin/items/33/restore", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("restore: %d", res.Status)
	}
	if res := shopper.Get("/items/33"); res.Status != http.StatusOK {
		t.Errorf("restored page: %d", res.Status)
	}
	if got := catCount(); got != countBefore {
		t.Errorf("category count after restore %s, want %s", got, countBefore)
	}
	if res := admin.Post("/admin/items/99999/archive", nil); res.Status != http.StatusNotFound {
		t.Errorf("archive a missing item: %d", res.Status)
	}
	if got := logs.audited("action"); got != "archive item,restore item" {
		t.Errorf("audit %s", got)
	}
}
