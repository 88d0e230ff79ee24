package handlers

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// catalogStore is the part of the store that the shop pages read.
type catalogStore interface {
	Item(ctx context.Context, id int64) (store.Item, error)
	Items(ctx context.Context, ids []int64) (map[int64]store.Item, error)
	ListItems(ctx context.Context, q store.ItemQuery) (store.ItemPage, error)
	Categories(ctx context.Context) ([]store.Category, error)
	PopularItems(ctx context.Context, n int64) ([]store.ItemViews, error)
}

const (
	maxQueryLen = 200
	maxPage     = 1_000_000
	homePopular = 10
)

// featuredIDs are the home page's picks: one from each department.
var featuredIDs = []int64{1, 2, 3, 4, 5, 6, 7, 8}

// Home shows popular items, the visitor's recently viewed items and picks.
func (h *Handler) Home(c echo.Context) error {
	ctx := c.Request().Context()
	s := session(c)
	popular, err := h.store.PopularItems(ctx, homePopular)
	if err != nil {
		return err
	}
	var recent []int64
	if s.Token != "" {
		if recent, err = h.store.RecentlyViewed(ctx, s.Token); err != nil {
			return err
		}
	}
	mostLiked, recentlyLiked, err := h.store.LikeBoards(ctx, homeLiked)
	if err != nil {
		return err
	}
	ids := append(append(append([]int64{}, featuredIDs...), recent...), recentlyLiked...)
	for _, p := range popular {
		ids = append(ids, p.ItemID)
	}
	for _, l := range mostLiked {
		ids = append(ids, l.ItemID)
	}
	rows, err := h.store.Items(ctx, ids)
	if err != nil {
		return err
	}
	top, err := h.store.Articles(ctx, store.ArticleQuery{Sort: store.SortTop, Page: 1, PerPage: homeArticles, ViewerID: s.UserID})
	if err != nil {
		return err
	}
	popIDs := make([]int64, len(popular))
	for i, p := range popular {
		popIDs[i] = p.ItemID
	}
	noStore(c)
	return render(c, http.StatusOK, views.HomePage(h.chrome(c, "Home"), views.HomeData{
		Popular:       cards(rows, popIDs),
		Recent:        cards(rows, recent),
		Featured:      cards(rows, featuredIDs),
		MostLiked:     likedCards(rows, mostLiked),
		RecentlyLiked: cards(rows, recentlyLiked),
		Articles:      articleRows(top.Articles, time.Now()),
	}))
}

// ListItems is the catalog with search (q), category filter and pages.
func (h *Handler) ListItems(c echo.Context) error {
	page, err := pageParam(c)
	if err != nil {
		return err
	}
	q := c.QueryParam("q")
	if utf8.RuneCountInString(q) > maxQueryLen {
		return badRequest("Searches can be at most 200 characters long.")
	}
	category := c.QueryParam("category")
	if len(category) > 64 {
		return badRequest("That department does not exist.")
	}
	ctx := c.Request().Context()
	res := store.ItemPage{}
	if page <= maxPage {
		if res, err = h.store.ListItems(ctx, store.ItemQuery{Q: q, Category: category, Page: page, PerPage: h.cfg.ItemsPerPage}); err != nil {
			return err
		}
	}
	cats, err := h.store.Categories(ctx)
	if err != nil {
		return err
	}
	d := views.ItemsData{Category: category, Query: q, Total: res.Total, AllURL: listURL(q, "", 1)}
	for _, it := range res.Items {
		d.Items = append(d.Items, card(it))
	}
	for _, cat := range cats {
		d.Categories = append(d.Categories, views.CategoryLink{Name: cat.Name, Count: cat.Count, URL: listURL(q, cat.Name, 1), Current: cat.Name == category})
	}
	d.Pager = pagerFor(page, h.cfg.ItemsPerPage, res.Total, func(p int) string { return listURL(q, category, p) })
	ch := h.chrome(c, "Shop")
	ch.Query = q
	return render(c, http.StatusOK, views.ItemsPage(ch, d))
}

func listURL(q, category string, page int) string {
	v := url.Values{}
	if q != "" {
		v.Set("q", q)
	}
	if category != "" {
		v.Set("category", category)
	}
	if page > 1 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "/items"
	}
	return "/items?" + v.Encode()
}

// pageParam reads ?page=: absent is 1; 0, negative or not a number is a 400.
func pageParam(c echo.Context) (int, error) {
	v := c.QueryParam("page")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return 0, badRequest("The page number must be a whole number of 1 or more.")
	}
	if n > maxPage {
		n = maxPage + 1 // far past the end: an empty page
	}
	return int(n), nil
}

func pagerFor(page, perPage, total int, urlFor func(int) string) views.Pager {
	pages := max(1, (total+perPage-1)/perPage)
	p := views.Pager{Page: page, Summary: "Page " + strconv.Itoa(page) + " of " + strconv.Itoa(pages)}
	if page > 1 {
		p.PrevURL = urlFor(min(page-1, pages))
	}
	if page < pages {
		p.NextURL = urlFor(page + 1)
	}
	return p
}

// itemIDParam reads :id; anything but a positive number names no item.
func itemIDParam(c echo.Context) (int64, error) {
	id, err := strconv.ParseInt(c.Param("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, notFound("There is no item with that number.")
	}
	return id, nil
}

func card(it store.Item) views.ItemCard {
	return views.ItemCard{ID: it.ID, Name: it.Name, Category: it.Category, PriceCents: it.PriceCents, Stock: it.Stock}
}

// likedCards is the leaderboard's items that still exist, in order.
func likedCards(rows map[int64]store.Item, liked []store.ItemLikes) []views.LikedItem {
	out := make([]views.LikedItem, 0, len(liked))
	for _, l := range liked {
		if it, ok := rows[l.ItemID]; ok {
			out = append(out, views.LikedItem{Item: card(it), Likes: l.Likes})
		}
	}
	return out
}

// cards returns the rows for ids, in the order of ids, skipping missing ones.
func cards(rows map[int64]store.Item, ids []int64) []views.ItemCard {
	out := make([]views.ItemCard, 0, len(ids))
	for _, id := range ids {
		if it, ok := rows[id]; ok {
			out = append(out, card(it))
		}
	}
	return out
}
