package merchant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"storefront/store/audit"
	"storefront/store/platform"
)

// Home is the home page as the merchant writes it: the headline and its
// text, the featured items (by id, in order) and whether the board's top
// articles show.
type Home struct {
	HeroTitle    string
	HeroText     string
	Featured     []int64
	ShowArticles bool
	// Collection is the slug of the collection the home page shows in
	// place of the featured items, "" for none.
	Collection string
}

// Limits of the home page's fields.
const (
	MaxHeroTitle = 120
	MaxHeroText  = 1000
	MaxFeatured  = 24
)

// DefaultHome is the home page until the admin writes one: the demo's
// first items featured (those that exist and are in stock show).
var DefaultHome = Home{
	HeroTitle:    "Good things, quickly found.",
	HeroText:     "Browse hand-picked items, keep a cart while you look around, and join the conversation on the article board.",
	Featured:     []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16},
	ShowArticles: true,
}

// HomeForm is the home page as the admin typed it: featured is a list of
// item ids or SKUs, separated by commas, spaces or lines.
type HomeForm struct {
	HeroTitle, HeroText, Featured string
	ShowArticles                  bool
	// Collection is a collection's slug, already checked by the caller
	// (the collections are another domain's), "" for none.
	Collection string
}

// Home is the home page in force, from memory.
func (s *Service) Home() Home { return s.cur.Load().home }

// SaveHome checks and saves the home page (a *FieldError says what is
// wrong, and nothing changes): every featured id or SKU must name an item.
func (s *Service) SaveHome(ctx context.Context, f HomeForm) (Home, error) {
	var h Home
	var err error
	if h.HeroTitle, err = oneLine("hero_title", "The headline", f.HeroTitle, MaxHeroTitle, true); err != nil {
		return Home{}, err
	}
	if h.HeroText, err = lines("hero_text", "The text", f.HeroText, MaxHeroText, 20); err != nil {
		return Home{}, err
	}
	if h.Featured, err = s.featuredIDs(ctx, f.Featured); err != nil {
		return Home{}, err
	}
	h.ShowArticles, h.Collection = f.ShowArticles, f.Collection
	ids := make([]string, len(h.Featured))
	for i, id := range h.Featured {
		ids[i] = strconv.FormatInt(id, 10)
	}
	err = platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		var before audit.Fields
		var was Home
		var featured string
		err := tx.QueryRowContext(ctx, `SELECT hero_title, hero_text, featured, show_articles, collection FROM home_page WHERE id = 1`).
			Scan(&was.HeroTitle, &was.HeroText, &featured, &was.ShowArticles, &was.Collection)
		switch {
		case err == nil:
			before = homeFields(was, featured)
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO home_page (id, hero_title, hero_text, featured, show_articles, updated_at, collection)
		VALUES (1, $1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET hero_title = excluded.hero_title, hero_text = excluded.hero_text,
		featured = excluded.featured, show_articles = excluded.show_articles, updated_at = excluded.updated_at,
		collection = excluded.collection`,
			h.HeroTitle, h.HeroText, strings.Join(ids, ","), h.ShowArticles, s.clock.Now().Unix(), h.Collection); err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "home.save", Target: "home page", Before: before, After: homeFields(h, strings.Join(ids, ","))})
	})
	if err != nil {
		return Home{}, fmt.Errorf("save home page: %w", err)
	}
	return h, s.saved(ctx)
}

// featuredIDs reads the featured list: item ids or SKUs, each naming an
// item, without repeats.
func (s *Service) featuredIDs(ctx context.Context, typed string) ([]int64, error) {
	if len(typed) > 4000 {
		return nil, &FieldError{"featured", "The featured items are a list of at most 24 ids or SKUs."}
	}
	words := strings.FieldsFunc(typed, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
	if len(words) > MaxFeatured {
		return nil, &FieldError{"featured", fmt.Sprintf("At most %d featured items (this is %d).", MaxFeatured, len(words))}
	}
	var out []int64
	seen := map[int64]bool{}
	for _, w := range words {
		var id int64
		err := s.db.QueryRowContext(ctx, `SELECT id FROM items WHERE sku = $1 OR CAST(id AS TEXT) = $1`, w).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, &FieldError{"featured", fmt.Sprintf("No item has the id or SKU %q.", clip(w, 40))}
		}
		if err != nil {
			return nil, fmt.Errorf("featured items: %w", err)
		}
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// readHome reads the saved home page; ok is false before the first save.
func readHome(ctx context.Context, db *sql.DB) (Home, bool, error) {
	var h Home
	var featured string
	err := db.QueryRowContext(ctx, `SELECT hero_title, hero_text, featured, show_articles, collection FROM home_page WHERE id = 1`).
		Scan(&h.HeroTitle, &h.HeroText, &featured, &h.ShowArticles, &h.Collection)
	if errors.Is(err, sql.ErrNoRows) {
		return Home{}, false, nil
	}
	if err != nil {
		return Home{}, false, fmt.Errorf("home page: %w", err)
	}
	for w := range strings.SplitSeq(featured, ",") {
		if id, err := strconv.ParseInt(w, 10, 64); err == nil {
			h.Featured = append(h.Featured, id)
		}
	}
	return h, true, nil
}

// homeFields are the home page as the audit log records it (featured as
// the stored list of item ids).
func homeFields(h Home, featured string) audit.Fields {
	return audit.Fields{"hero_title": h.HeroTitle, "hero_text": h.HeroText, "featured": featured,
		"show_articles": h.ShowArticles, "collection": h.Collection}
}
