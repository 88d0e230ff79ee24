package handlers_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"storefront/views"
)

// BenchmarkItemPageRender renders the item page template alone.
func BenchmarkItemPageRender(b *testing.B) {
	d := views.ItemData{
		Item:        views.ItemCard{ID: 42, Name: "Nordic Slate Trail Tent", Category: "Outdoors", PriceCents: 18999, Stock: 12},
		Description: "The nordic slate trail tent in slate. Light enough to carry, tough enough to last.",
		MaxQty:      12,
	}
	for i := range 10 {
		d.Recent = append(d.Recent, views.ItemCard{ID: int64(i + 1), Name: "Recently viewed item"})
	}
	c := views.Chrome{Title: d.Item.Name, Viewer: views.Viewer{SignedIn: true, Name: "shopper", CartCount: 3}}
	b.ReportAllocs()
	for b.Loop() {
		if err := views.ItemPage(c, d).Render(b.Context(), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkItemPageHandler serves item pages through the real router and
// store for a visitor with a session (the visit's writes, recently viewed, SQL),
// bypassing the page cache with ?_= so the uncached path is measured.
func BenchmarkItemPageHandler(b *testing.B) {
	a := newBenchApp(b)
	router := a.h.Router()
	// First view creates the session; reuse its cookie.
	rec := httptest.NewRecorder()
	router.ServeHTTP(rec, httptest.NewRequest("GET", "/items/1", nil))
	cookies := rec.Result().Cookies()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		req := httptest.NewRequest("GET", "/items/"+itoa(int64(i%1000+1))+"?_=1", nil)
		for _, ck := range cookies {
			req.AddCookie(ck)
		}
		rec := httptest.NewRecorder()
		router.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d", rec.Code)
		}
	}
}
