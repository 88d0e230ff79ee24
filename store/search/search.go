package search

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"storefront/store/analytics"
	"storefront/store/catalog"
	"storefront/store/platform"
)

// Service is the catalog search.
type Service struct {
	rdb       redis.UniversalClient
	db        *sql.DB
	dbKind    string
	log       *slog.Logger
	cache     *searchCache
	catalog   *catalog.Service
	analytics *analytics.Service
}

// Options are the search's knobs.
type Options struct {
	// CacheBytes bounds the in-process cache of search results (0 takes
	// DefaultCacheBytes, negative turns it off).
	CacheBytes int64
}

// New returns the search over the catalog; its popular order follows the
// analytics' view ranking.
func New(b platform.Base, opt Options, cat *catalog.Service, an *analytics.Service) *Service {
	if opt.CacheBytes == 0 {
		opt.CacheBytes = DefaultCacheBytes
	}
	return &Service{rdb: b.Redis, db: b.DB, dbKind: b.DBKind, log: b.Log, cache: newSearchCache(opt.CacheBytes), catalog: cat, analytics: an}
}

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
	// Categories, when not empty, keeps the items of any of these
	// categories (a category page: the category and those below it).
	Categories []string
	MinCents   int64 // with HasMin
	MaxCents   int64 // with HasMax
	HasMin     bool
	HasMax     bool
	InStock    bool
	Sort       string // one of CatalogSorts; "" is SortRelevance
	Page       int    // 1-based
	PerPage    int
}

// SearchResult is one page of matches, how many there are in all, the
// facet counts for the same query and a spelling suggestion.
type SearchResult struct {
	Items []catalog.Item
	Total int
	// Categories counts the matches per category under every filter but
	// the category filter itself, so a shopper sees what switching
	// category would give; most matches first.
	Categories []catalog.Category
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
//
// Facet counts, pages of ids and spelling corrections are cached in
// process under the catalog's version (cache.go); the items of the
// page are always read fresh.
func (s *Service) Search(ctx context.Context, q SearchQuery) (SearchResult, error) {
	if q.Sort == "" {
		q.Sort = SortRelevance
	}
	words := searchWords(q.Q)
	if len(words) == 0 && strings.TrimSpace(q.Q) != "" {
		return SearchResult{}, nil // only punctuation: nothing can match
	}
	v, err := s.searchVersion(ctx)
	cached := err == nil
	if err != nil {
		// Searching still works without the cache (Redis down on
		// PostgreSQL): every query is computed afresh.
		s.log.Warn("search cache off for this query", "err", err)
	}
	res, err := s.search(ctx, q, wordGroups(words), v, cached)
	if err != nil || res.Total > 0 || len(words) == 0 {
		return res, err
	}
	fixed, changed, err := s.correct(ctx, words, v, cached)
	if err != nil || !changed {
		return res, err
	}
	retry, err := s.search(ctx, q, fixed, v, cached)
	if err != nil || retry.Total == 0 {
		return res, err
	}
	retry.DidYouMean = suggestion(fixed)
	return retry, nil
}

// search runs one query whose words are groups of alternatives (a word
// and its spelling corrections). With cached, results held under version
// v are used and new ones held.
func (s *Service) search(ctx context.Context, q SearchQuery, groups [][]string, v searchVersion, cached bool) (SearchResult, error) {
	f := s.filter(q, groups)
	var res SearchResult
	key := ""
	if cached {
		key = v.resultsKey() + "|" + ftsQuery(groups) + "|" + priceKey(q)
	}
	offset := (q.Page - 1) * q.PerPage
	// The page is read beside the facet counts, on another connection:
	// neither needs the other (unless the page is past the last match,
	// when it is dropped), so a search takes as long as the slower one.
	pageCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	page := make(chan idsOrErr, 1)
	go func() {
		ids, err := s.pageIDs(pageCtx, f, q, offset, key)
		page <- idsOrErr{ids, err}
	}()
	counts, err := s.facetCounts(ctx, f, key)
	if err == nil {
		res.fillFacets(counts, q)
	}
	if err != nil || offset >= res.Total {
		cancel()
		<-page // its connection is back in the pool before Search returns
		return res, err
	}
	p := <-page
	ids, err := p.ids, p.err
	if err != nil {
		return res, err
	}
	rows, err := s.catalog.Items(ctx, ids)
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

type idsOrErr struct {
	ids []int64
	err error
}

// pageIDs returns the ids of one page of matches in the query's order;
// key (when not "") is the query's cache key without the page.
func (s *Service) pageIDs(ctx context.Context, f searchFilter, q SearchQuery, offset int, key string) ([]int64, error) {
	if q.Sort == SortPopular {
		// Not cached: the order follows views, which change all the time.
		textKey := ""
		if key != "" {
			textKey = key + "|text"
		}
		return s.popularPage(ctx, f, offset, q.PerPage, textKey)
	}
	if key != "" {
		key = fmt.Sprintf("%s|page|%q|%q|%t|%s|%d|%d", key, q.Category, q.Categories, q.InStock, q.Sort, offset, q.PerPage)
	}
	return s.cachedPage(ctx, f, q.Sort, offset, q.PerPage, key)
}

// priceKey is the price range part of a cache key.
func priceKey(q SearchQuery) string {
	k := ""
	if q.HasMin {
		k += "min" + strconv.FormatInt(q.MinCents, 10)
	}
	if q.HasMax {
		k += "max" + strconv.FormatInt(q.MaxCents, 10)
	}
	return k
}

// facetCount is how many matches of the text query and price range one
// category holds, and how many of them are in stock.
type facetCount struct {
	category     string
	all, inStock int
}

// facetCounts counts the matches of the text query and price range per
// category with one grouped query, or returns the counts cached under
// key (when not ""). The category and in-stock filters are left out, so
// the counts serve every combination of them.
func (s *Service) facetCounts(ctx context.Context, f searchFilter, key string) ([]facetCount, error) {
	if key != "" {
		if v, ok := s.cache.get(key + "|facets"); ok {
			return v.([]facetCount), nil
		}
	}
	where, args := f.where(false, false)
	from := f.from
	if f.text == "" && s.dbKind != platform.DBPostgres {
		// Left to itself SQLite walks items_category and reads every
		// item's row; the partial index holds all the query reads.
		from = "items INDEXED BY items_onsale_facets"
	}
	rows, err := s.db.QueryContext(ctx, `SELECT items.category, COUNT(*), SUM(CASE WHEN items.stock > 0 THEN 1 ELSE 0 END) FROM `+
		from+` WHERE `+where+` GROUP BY items.category`, args...)
	if err != nil {
		return nil, fmt.Errorf("search facets: %w", err)
	}
	defer rows.Close()
	var out []facetCount
	size := int64(0)
	for rows.Next() {
		var c facetCount
		if err := rows.Scan(&c.category, &c.all, &c.inStock); err != nil {
			return nil, fmt.Errorf("search facets: %w", err)
		}
		out = append(out, c)
		size += int64(len(c.category)) + 32
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search facets: %w", err)
	}
	if key != "" {
		s.cache.put(key+"|facets", out, size)
	}
	return out, nil
}

// fillFacets sets the total and the facets of res from the per-category
// counts, under the query's category and in-stock filters.
func (res *SearchResult) fillFacets(counts []facetCount, q SearchQuery) {
	for _, c := range counts {
		n := c.all
		if q.InStock {
			n = c.inStock
		}
		inCat := (q.Category == "" || c.category == q.Category) && (len(q.Categories) == 0 || slices.Contains(q.Categories, c.category))
		if n > 0 {
			res.Categories = append(res.Categories, catalog.Category{Name: c.category, Count: n})
			if inCat {
				res.Total += n
			}
		}
		if inCat {
			res.InStock += c.inStock
		}
	}
	sortCategories(res.Categories)
}

// cachedPage is orderedPage through the cache (key "" bypasses it).
func (s *Service) cachedPage(ctx context.Context, f searchFilter, sort string, offset, limit int, key string) ([]int64, error) {
	if key != "" {
		if v, ok := s.cache.get(key); ok {
			return v.([]int64), nil
		}
	}
	ids, err := s.orderedPage(ctx, f, sort, offset, limit)
	if err == nil && key != "" {
		s.cache.put(key, ids, int64(8*len(ids)))
	}
	return ids, err
}

// orderedPage returns one page of matching ids in an order SQL can give.
func (s *Service) orderedPage(ctx context.Context, f searchFilter, sort string, offset, limit int) ([]int64, error) {
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
		return nil, fmt.Errorf("search: sort %q: %w", sort, platform.ErrInvalid)
	}
	where, args := f.where(true, true)
	args = append(args, limit, offset)
	return s.queryIDs(ctx, fmt.Sprintf(`SELECT items.id FROM %s WHERE %s ORDER BY %s LIMIT $%d OFFSET $%d`,
		f.from, where, order, len(args)-1, len(args)), args...)
}

func (s *Service) queryIDs(ctx context.Context, query string, args ...any) ([]int64, error) {
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
func (s *Service) CategoryExists(ctx context.Context, name string) (bool, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM items WHERE category = $1 AND `+catalog.OnSale+` LIMIT 1) AS one`, name).Scan(&n)
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
	conds := []string{"items." + catalog.OnSale} // archived items are never found
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
	if withCategory && len(f.q.Categories) > 0 {
		in := make([]string, len(f.q.Categories))
		for i, c := range f.q.Categories {
			in[i] = arg(c)
		}
		conds = append(conds, "items.category IN ("+strings.Join(in, ", ")+")")
	}
	if withStock && f.q.InStock {
		conds = append(conds, "items.stock > 0")
	}
	return strings.Join(conds, " AND "), args
}

// filter turns a query into SQL for this database.
func (s *Service) filter(q SearchQuery, groups [][]string) searchFilter {
	f := searchFilter{from: "items", category: q.Category, q: q}
	if len(groups) == 0 {
		return f
	}
	if s.dbKind == platform.DBPostgres {
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
