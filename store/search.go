package store

import (
	"context"
	"fmt"
	"strings"
)

// Catalog sorts.
const (
	SortRelevance = "relevance" // best match first with a query; catalog order without one
	SortPriceAsc  = "price_asc"
	SortPriceDesc = "price_desc"
	SortPopular   = "popular" // most viewed first (the `viewed:` ranking), then catalog order
	SortNewest    = "newest"  // most recently added first
)

// CatalogSorts lists the sorts in the order a shopper is offered them.
var CatalogSorts = []string{SortRelevance, SortPopular, SortPriceAsc, SortPriceDesc, SortNewest}

// SearchQuery selects and orders a page of the catalog. Zero values mean
// "no filter".
type SearchQuery struct {
	Q        string // full-text query
	Category string
	MinCents int64 // with HasMin
	MaxCents int64 // with HasMax
	HasMin   bool
	HasMax   bool
	InStock  bool
	Sort     string // one of CatalogSorts; "" is SortRelevance
	Page     int    // 1-based
	PerPage  int
}

// SearchResult is one page of matches, how many there are in all, the
// facet counts for the same query and a spelling suggestion.
type SearchResult struct {
	Items []Item
	Total int
	// Categories counts the matches per category under every filter but
	// the category filter itself, so a shopper sees what switching
	// category would give; most matches first.
	Categories []Category
	// InStock counts the matches that are in stock, under every filter but
	// the in-stock filter itself.
	InStock int
	// DidYouMean is the query with misspelt words corrected, when the
	// query as typed matched nothing and the corrected one matches; the
	// matches shown are then the corrected query's.
	DidYouMean string
}

// Search runs a catalog query: full-text ranked search (FTS5 on SQLite,
// tsvector on PostgreSQL) combined with the filters, one page in the
// requested order, and facet counts that follow the query and filters. A
// query that matches nothing is retried with each unknown word of five or
// more letters replaced by the catalog words one typo away from it.
func (s *Store) Search(ctx context.Context, q SearchQuery) (SearchResult, error) {
	if q.Sort == "" {
		q.Sort = SortRelevance
	}
	words := searchWords(q.Q)
	if len(words) == 0 && strings.TrimSpace(q.Q) != "" {
		return SearchResult{}, nil // only punctuation: nothing can match
	}
	res, err := s.search(ctx, q, wordGroups(words))
	if err != nil || res.Total > 0 || len(words) == 0 {
		return res, err
	}
	fixed, changed, err := s.correct(ctx, words)
	if err != nil || !changed {
		return res, err
	}
	retry, err := s.search(ctx, q, fixed)
	if err != nil || retry.Total == 0 {
		return res, err
	}
	retry.DidYouMean = suggestion(fixed)
	return retry, nil
}

// search runs one query whose words are groups of alternatives (a word
// and its spelling corrections).
func (s *Store) search(ctx context.Context, q SearchQuery, groups [][]string) (SearchResult, error) {
	f := s.filter(q, groups)
	var res SearchResult
	if err := s.facets(ctx, f, q, &res); err != nil {
		return res, err
	}
	offset := (q.Page - 1) * q.PerPage
	if offset >= res.Total {
		return res, nil
	}
	var ids []int64
	var err error
	if q.Sort == SortPopular {
		ids, err = s.popularPage(ctx, f, offset, q.PerPage)
	} else {
		ids, err = s.orderedPage(ctx, f, q.Sort, offset, q.PerPage)
	}
	if err != nil {
		return res, err
	}
	rows, err := s.Items(ctx, ids)
	if err != nil {
		return res, err
	}
	for _, id := range ids {
		if it, ok := rows[id]; ok {
			res.Items = append(res.Items, it)
		}
	}
	return res, nil
}

// facets fills the total and the facet counts with one grouped query over
// the matches of the text query and price range.
func (s *Store) facets(ctx context.Context, f searchFilter, q SearchQuery, res *SearchResult) error {
	where, args := f.where(false, false)
	rows, err := s.db.QueryContext(ctx, `SELECT items.category, items.stock > 0, COUNT(*) FROM `+f.from+` WHERE `+where+
		` GROUP BY items.category, items.stock > 0`, args...)
	if err != nil {
		return fmt.Errorf("search facets: %w", err)
	}
	defer rows.Close()
	perCat := map[string]int{}
	for rows.Next() {
		var cat string
		var inStock bool
		var n int
		if err := rows.Scan(&cat, &inStock, &n); err != nil {
			return fmt.Errorf("search facets: %w", err)
		}
		inCat := q.Category == "" || cat == q.Category
		if inStock || !q.InStock {
			perCat[cat] += n
			if inCat {
				res.Total += n
			}
		}
		if inStock && inCat {
			res.InStock += n
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("search facets: %w", err)
	}
	for name, n := range perCat {
		res.Categories = append(res.Categories, Category{Name: name, Count: n})
	}
	sortCategories(res.Categories)
	return nil
}

// orderedPage returns one page of matching ids in an order SQL can give.
func (s *Store) orderedPage(ctx context.Context, f searchFilter, sort string, offset, limit int) ([]int64, error) {
	order := "items.id"
	switch sort {
	case SortRelevance:
		if f.rank != "" {
			order = f.rank + ", items.id"
		}
	case SortPriceAsc:
		order = "items.price_cents, items.id"
	case SortPriceDesc:
		order = "items.price_cents DESC, items.id"
	case SortNewest:
		order = "items.id DESC"
	default:
		return nil, fmt.Errorf("search: sort %q: %w", sort, ErrInvalid)
	}
	where, args := f.where(true, true)
	args = append(args, limit, offset)
	return s.queryIDs(ctx, fmt.Sprintf(`SELECT items.id FROM %s WHERE %s ORDER BY %s LIMIT $%d OFFSET $%d`,
		f.from, where, order, len(args)-1, len(args)), args...)
}

func (s *Store) queryIDs(ctx context.Context, query string, args ...any) ([]int64, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("search: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// CategoryExists says whether any item is in the category.
func (s *Store) CategoryExists(ctx context.Context, name string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM items WHERE category = $1 AND `+onSale+` LIMIT 1) AS one`, name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("category: %w", err)
	}
	return n > 0, nil
}

// searchFilter is a query's FROM clause, its conditions and the ranking
// expression, built once for the facet, page and popularity queries.
type searchFilter struct {
	from     string
	rank     string // ORDER BY expression for relevance; "" without a text query
	text     string // the text condition, "" without a text query
	textArg  string
	category string
	q        SearchQuery
}

// where builds the WHERE clause and its arguments ($1...). The category
// and in-stock filters are optional so that the facet query can count
// every category and both stock states at once.
func (f searchFilter) where(withCategory, withStock bool) (string, []any) {
	conds := []string{"items." + onSale} // archived items are never found
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	if f.text != "" {
		conds = append(conds, strings.ReplaceAll(f.text, "$Q", arg(f.textArg)))
	}
	if f.q.HasMin {
		conds = append(conds, "items.price_cents >= "+arg(f.q.MinCents))
	}
	if f.q.HasMax {
		conds = append(conds, "items.price_cents <= "+arg(f.q.MaxCents))
	}
	if withCategory && f.category != "" {
		conds = append(conds, "items.category = "+arg(f.category))
	}
	if withStock && f.q.InStock {
		conds = append(conds, "items.stock > 0")
	}
	return strings.Join(conds, " AND "), args
}

// filter turns a query into SQL for this database.
func (s *Store) filter(q SearchQuery, groups [][]string) searchFilter {
	f := searchFilter{from: "items", category: q.Category, q: q}
	if len(groups) == 0 {
		return f
	}
	if s.dbKind == DBPostgres {
		f.text = "items.search @@ to_tsquery('english', $Q)"
		f.textArg = tsQuery(groups)
		// The argument is repeated in the rank: where() numbers it first.
		f.rank = "ts_rank(items.search, to_tsquery('english', $1)) DESC"
		return f
	}
	// CROSS JOIN makes SQLite run the full-text match first and look the
	// matches up in items; left to itself it may walk a category or price
	// index and test every row against the index (seconds at 100k items).
	f.from = "items_fts CROSS JOIN items ON items.id = items_fts.rowid"
	f.text = "items_fts MATCH $Q"
	f.textArg = ftsQuery(groups)
	// Column weights: a word in the name counts most, then the category,
	// then the description.
	f.rank = "bm25(items_fts, 10.0, 4.0, 1.0)"
	return f
}
