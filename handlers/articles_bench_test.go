package handlers_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"storefront/handlers"
	"storefront/store/board"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

// BenchmarkVote measures votes per second through the whole handler stack
// (middleware, session check, vote script, JSON answer), with parallel
// readers switching between up and down on 100 articles so that every vote
// changes the score. VOTE_RATE is off so that the limiter does not refuse
// the benchmark; with it on, each vote costs one more round trip. Run it on
// real Redis with:
//
//	REDIS_URL=redis://127.0.0.1:6379/3 go test -run '^$' -bench Vote -benchtime 5s ./handlers/
func BenchmarkVote(b *testing.B) {
	st := wiringtest.New(b)
	h, err := handlers.New(testConfig(b), st, storetest.Logger(b))
	if err != nil {
		b.Fatal(err)
	}
	router := h.Router()
	const readers, articles = 64, 100
	cookies := make([][]*http.Cookie, readers)
	for i := range cookies {
		name := fmt.Sprintf("bench%d", i)
		if _, err := st.Sessions.CreateUser(b.Context(), name, "correct horse battery"); err != nil {
			b.Fatal(err)
		}
		cookies[i] = signIn(b, router, name)
	}
	poster, _ := st.Sessions.UserByName(b.Context(), "bench0")
	for i := range articles {
		if _, err := st.Board.PostArticle(b.Context(), board.NewArticle{Title: fmt.Sprint("bench ", i), Link: "https://example.com/",
			PosterID: poster.ID, Poster: poster.Username}); err != nil {
			b.Fatal(err)
		}
	}
	var next atomic.Int64
	b.SetParallelism(8) // goroutines per CPU: keep Redis busy while others wait
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		n := next.Add(1)
		jar := cookies[int(n)%readers]
		for i := 0; pb.Next(); i++ {
			dir := []string{"up", "down"}[i/articles%2]
			req := httptest.NewRequest("POST", fmt.Sprintf("/articles/%d/vote", i%articles+1), strings.NewReader("dir="+dir))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Accept", "application/json")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			for _, c := range jar {
				req.AddCookie(c)
			}
			rec := httptest.NewRecorder()
			router.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				b.Fatalf("vote: %d %s", rec.Code, rec.Body)
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "votes/s")
}

// signIn posts the login form to the router and returns the cookies.
func signIn(b *testing.B, router http.Handler, name string) []*http.Cookie {
	form := url.Values{"username": {name}, "password": {"correct horse battery"}}
	req := httptest.NewRequest("POST", "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	router.ServeHTTP(rec, req)
	if rec.Code != http.StatusSeeOther {
		b.Fatalf("login %s: %d", name, rec.Code)
	}
	var out []*http.Cookie
	for _, c := range rec.Result().Cookies() {
		if c.Value != "" && c.Name != "flash" {
			out = append(out, c)
		}
	}
	return out
}
