package shop

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/store/merchant"
	"storefront/store/search"
	"storefront/views"
)

const (
	maxCategoryLen = 64
	// pagerSpan is how many page numbers the pager shows on each side of
	// the current one.
	pagerSpan = 2
)

// sortLabels names the catalog sorts for shoppers.
var sortLabels = map[string]string{
	search.SortRelevance: "Best match",
	search.SortPopular:   "Most popular",
	search.SortPriceAsc:  "Price: low to high",
	search.SortPriceDesc: "Price: high to low",
	search.SortNewest:    "Newest",
}

// listParams is a catalog URL's query, as the shopper wrote it; it builds
// the links of the listing (facets, sorts, pages, the suggestion).
type listParams struct {
	Q, Category, Min, Max, Sort string
	InStock                     bool
	// Base is a category's page (/c/<path>), which names the category
	// itself; "" is the catalog, /items.
	Base string
}

func (p listParams) url(page int) string {
	base := "/items"
	if p.Base != "" {
		base, p.Category = p.Base, ""
	}
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("q", p.Q)
	set("category", p.Category)
	set("min", p.Min)
	set("max", p.Max)
	if p.InStock {
		v.Set("in_stock", "1")
	}
	if p.Sort != "" && p.Sort != search.SortRelevance {
		v.Set("sort", p.Sort)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return base
	}
	return base + "?" + v.Encode()
}

// ListItems is the catalog: full-text search, filters (category, price
// range, in stock), five sorts, facet counts and numbered pages.
func (h *Handler) ListItems(c echo.Context) error {
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	p, q, err := parseListParams(c, h.web.Currency())
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	tree, err := h.catalog.Tree(ctx)
	if err != nil {
		return err
	}
	var node *catalog.CategoryNode
	if q.Category != "" {
		if n, ok := tree.ByName(q.Category); ok {
			// The category and those below it, like its page.
			node, q.Category, q.Categories = n, "", tree.Names(n)
		} else {
			ok, err := h.search.CategoryExists(ctx, q.Category)
			if err != nil {
				return err
			}
			if !ok {
				return web.NotFound("That department does not exist.")
			}
		}
	}
	return h.listing(c, p, q, page, tree, node)
}

// listing answers the catalog (/items) and a category's page (/c/<path>,
// with p.Base set): one page of the query's matches, its facets and pager.
func (h *Handler) listing(c echo.Context, p listParams, q search.SearchQuery, page int, tree *catalog.Tree, node *catalog.CategoryNode) error {
	ctx := c.Request().Context()
	q.Page, q.PerPage = page, h.cfg.ItemsPerPage
	res := search.SearchResult{}
	if page <= web.MaxPage {
		var err error
		if res, err = h.search.Search(ctx, q); err != nil {
			return err
		}
	}
	d := itemsData(p, page, h.cfg.ItemsPerPage, res)
	seo := listing{category: p.Category, page: page}
	if node != nil {
		seo.title, seo.path, seo.trail = node.Title, node.Path, trailOf(tree, node)
		d.Title = node.Title
	}
	if p.Base != "" {
		d.CategoryPath, d.Action, d.Crumbs = node.Path, p.Base, seo.trail
		d.Categories, d.AllURL = subcategoryFacets(p, tree, node, res), allIn(p, tree, node)
	} else {
		for i, f := range d.Categories {
			if n, ok := tree.ByName(f.Name); ok {
				d.Categories[i].Title = n.Title
			}
		}
	}
	if err := h.withPictures(ctx, d.Items); err != nil {
		return err
	}
	ids := make([]int64, len(res.Items))
	for i, it := range res.Items {
		ids[i] = it.ID
	}
	ratings, err := h.reviews.Ratings(ctx, ids)
	if err != nil {
		return err
	}
	d.Items = rated(d.Items, ratings)
	ch := h.web.Chrome(c, "Shop")
	ch.Query = p.Q
	h.listingSEO(&ch, seo, d.Items)
	return web.Render(c, http.StatusOK, views.ItemsPage(ch, d))
}

// parseListParams reads and checks the listing's query parameters.
func parseListParams(c echo.Context, cur merchant.Currency) (listParams, search.SearchQuery, error) {
	p := listParams{Q: c.QueryParam("q"), Category: c.QueryParam("category"), Min: c.QueryParam("min"),
		Max: c.QueryParam("max"), Sort: c.QueryParam("sort")}
	q := search.SearchQuery{Q: p.Q, Category: p.Category, Sort: p.Sort}
	if !utf8.ValidString(p.Q) || utf8.RuneCountInString(p.Q) > web.MaxQueryLen {
		return p, q, web.BadRequest("Searches can be at most 200 characters long.")
	}
	if len(p.Category) > maxCategoryLen {
		return p, q, web.NotFound("That department does not exist.")
	}
	if p.Sort != "" && !slices.Contains(search.CatalogSorts, p.Sort) {
		return p, q, web.BadRequest("Sort by best match, popularity, price or newest.")
	}
	switch c.QueryParam("in_stock") {
	case "", "0":
	case "1", "on", "true":
		p.InStock, q.InStock = true, true
	default:
		return p, q, web.BadRequest("in_stock is 1 (only items in stock) or absent.")
	}
	var ok bool
	if p.Min != "" {
		if q.MinCents, ok = cur.ParseAmount(p.Min); !ok {
			return p, q, web.BadRequest("Write the lowest price in " + cur.Code + ", such as " + cur.AmountInput(1234) + ".")
		}
		q.HasMin = true
	}
	if p.Max != "" {
		if q.MaxCents, ok = cur.ParseAmount(p.Max); !ok {
			return p, q, web.BadRequest("Write the highest price in " + cur.Code + ", such as " + cur.AmountInput(1234) + ".")
		}
		q.HasMax = true
	}
	if q.HasMin && q.HasMax && q.MinCents > q.MaxCents {
		return p, q, web.BadRequest("The lowest price is above the highest price.")
	}
	return p, q, nil
}

// itemsData is the listing's view model.
func itemsData(p listParams, page, perPage int, res search.SearchResult) views.ItemsData {
	d := views.ItemsData{Query: p.Q, Category: p.Category, Min: p.Min, Max: p.Max, InStock: p.InStock,
		Total: res.Total, Pager: numberedPager(p, page, perPage, res.Total)}
	for _, it := range res.Items {
		d.Items = append(d.Items, card(it))
	}
	all := p
	all.Category = ""
	d.AllURL = all.url(1)
	for _, cat := range res.Categories {
		to := p
		to.Category = cat.Name
		d.Categories = append(d.Categories, views.CategoryLink{Name: cat.Name, Count: cat.Count, URL: to.url(1), Current: cat.Name == p.Category})
	}
	stock := p
	stock.InStock = !p.InStock
	d.InStockCount, d.InStockURL = res.InStock, stock.url(1)
	for _, s := range search.CatalogSorts {
		d.Sorts = append(d.Sorts, views.SortOption{Value: s, Label: sortLabels[s], Selected: s == p.Sort || (p.Sort == "" && s == search.SortRelevance)})
	}
	if res.DidYouMean != "" {
		fixed := p
		fixed.Q = res.DidYouMean
		d.DidYouMean, d.DidYouMeanURL = res.DidYouMean, fixed.url(1)
	}
	return d
}

// numberedPager links the first and last pages and those around the
// current one.
func numberedPager(p listParams, page, perPage, total int) views.NumberedPager {
	pages := max(1, (total+perPage-1)/perPage)
	np := views.NumberedPager{Page: page, Pages: pages}
	if page > 1 {
		np.PrevURL = p.url(min(page-1, pages))
	}
	if page < pages {
		np.NextURL = p.url(page + 1)
	}
	last := 0
	for n := 1; n <= pages; n++ {
		if n != 1 && n != pages && (n < page-pagerSpan || n > page+pagerSpan) {
			continue
		}
		if last != 0 && n > last+1 {
			np.Links = append(np.Links, views.PageLink{Gap: true})
		}
		np.Links = append(np.Links, views.PageLink{Page: n, URL: p.url(n), Current: n == page})
		last = n
	}
	return np
}
