package seed_test

import (
	"strings"
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

// TestDemoBoardIsTheShopsCommunity: the demo board reads as the shop's
// readers talking about what they bought, looking after it and making
// things: no programming topics, texts as well as links (some posts are
// text only), every group in use, and some comments answered.
func TestDemoBoardIsTheShopsCommunity(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.SeedArticles = true })
	ctx := t.Context()
	p, err := st.Board.Articles(ctx, board.ArticleQuery{Sort: board.SortNew, Page: 1, PerPage: 100})
	if err != nil {
		t.Fatal(err)
	}
	var texts, textOnly, replies int
	groups := map[string]int{}
	for _, a := range p.Articles {
		for _, word := range []string{"redis", "golang", " go ", "postgres", "sqlite", "lua", "http", "cookie"} {
			if strings.Contains(" "+strings.ToLower(a.Title)+" ", word) {
				t.Errorf("demo article %q is about %s, not the shop", a.Title, strings.TrimSpace(word))
			}
		}
		if a.Body != "" {
			texts++
		}
		if a.Link == "" {
			textOnly++
		}
		for _, g := range a.Groups {
			groups[g]++
		}
		_, cs, err := st.Board.ArticleWithComments(ctx, a.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Parent > 0 {
				replies++
				if c.UserID == cs[c.Parent-1].UserID {
					t.Errorf("article %d: a demo reader answers their own comment", a.ID)
				}
			}
		}
	}
	if texts < len(p.Articles)/2 || textOnly == 0 || textOnly == len(p.Articles) {
		t.Errorf("%d of %d demo articles have a text, %d are text only", texts, len(p.Articles), textOnly)
	}
	for _, g := range board.ArticleGroups {
		if groups[g] == 0 {
			t.Errorf("no demo article in group %s", g)
		}
	}
	if replies == 0 {
		t.Error("no demo comment is answered")
	}
}
