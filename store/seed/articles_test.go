package seed_test

import (
	"testing"
	"time"

	"storefront/store/board"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// TestDemoBoardIsInThePast: no demo article or comment is dated after the
// moment the board was seeded (comments used to reach up to 77 minutes
// into the future), and each article's comments come after it, in order.
func TestDemoBoardIsInThePast(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.SeedArticles = true })
	now := time.Now()
	ctx := t.Context()
	p, err := st.Board.Articles(ctx, board.ArticleQuery{Sort: board.SortNew, Page: 1, PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Articles) < 30 {
		t.Fatalf("%d demo articles", len(p.Articles))
	}
	comments := 0
	for _, a := range p.Articles {
		if a.Posted.After(now) {
			t.Errorf("article %d is posted %v in the future", a.ID, a.Posted.Sub(now))
		}
		_, cs, err := st.Board.ArticleWithComments(ctx, a.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		last := a.Posted
		for _, c := range cs {
			comments++
			if c.Posted.After(now) {
				t.Errorf("comment %d on article %d is dated %v in the future", c.ID, a.ID, c.Posted.Sub(now).Round(time.Second))
			}
			if c.Posted.Before(last) {
				t.Errorf("comment %d on article %d is dated before what it follows", c.ID, a.ID)
			}
			last = c.Posted
		}
	}
	if comments == 0 {
		t.Error("the demo board has no comments")
	}
}
