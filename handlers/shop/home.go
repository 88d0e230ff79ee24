package shop

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/catalog"
	"storefront/store/merchant"
	"storefront/store/reviews"
	"storefront/store/social"
	"storefront/views"
)

const (
	homePopular = 10
	// homeArticles is how many of the board's top articles the home page lists.
	homeArticles = 5
)

// featuredCount is how many of the merchant's featured items show, the
// first in stock (a multiple of the grid's four and two columns, so that
// no row is ragged when there are enough).
const featuredCount = 8

// homeDescription is the home page's meta description and preview text:
// the merchant's own words when they wrote some.
func homeDescription(shop string, home merchant.Home) string {
	if d := views.MetaDescription(home.HeroTitle + ". " + home.HeroText); home.HeroText != "" && d != "" {
		return d
	}
	return shop + ": hand-picked items with reviews from buyers."
}

// Home shows popular items, the visitor's recently viewed items and picks.
func (h *Handler) Home(c echo.Context) error {
	ctx := c.Request().Context()
	s := web.SessionOf(c)
	home := h.home.Home()
	popular, err := h.popular.PopularItems(ctx, homePopular)
	if err != nil {
		return err
	}
	var recent []int64
	if s.Token != "" {
		if recent, err = h.sessions.RecentlyViewed(ctx, s.Token); err != nil {
			return err
		}
	}
	mostLiked, recentlyLiked, err := h.likes.LikeBoards(ctx, homeLiked)
	if err != nil {
		return err
	}
	ids := append(append(append([]int64{}, home.Featured...), recent...), recentlyLiked...)
	for _, p := range popular {
		ids = append(ids, p.ItemID)
	}
	for _, l := range mostLiked {
		ids = append(ids, l.ItemID)
	}
	rows, err := h.catalog.Items(ctx, ids)
	if err != nil {
		return err
	}
	ratings, err := h.reviews.Ratings(ctx, ids)
	if err != nil {
		return err
	}
	var top board.ArticlePage
	if home.ShowArticles {
		if top, err = h.articles.Articles(ctx, board.ArticleQuery{Sort: board.SortTop, Page: 1, PerPage: homeArticles, ViewerID: s.UserID}); err != nil {
			return err
		}
	}
	popIDs := make([]int64, len(popular))
	for i, p := range popular {
		popIDs[i] = p.ItemID
	}
	picks := rated(featured(rows, home.Featured), ratings)
	if err := h.withPictures(ctx, picks); err != nil {
		return err
	}
	coll, err := h.homeCollection(ctx, home.Collection)
	if err != nil {
		return err
	}
	web.NoStore(c)
	ch := h.web.Chrome(c, "Home")
	ch.Description = homeDescription(h.web.Shop().Name, home)
	ch.LD = views.HomeLD(h.web.Shop(), h.cfg.ShopURL)
	ch.Social = views.Social{Type: "website", Title: h.web.Shop().Name, Description: ch.Description, URL: h.cfg.ShopURL + "/"}
	if len(picks) > 0 && picks[0].Picture.Src != "" {
		ch.Social.Image, ch.Social.ImageWidth, ch.Social.ImageHt = h.cfg.ShopURL+picks[0].Picture.Largest, picks[0].Picture.Width, picks[0].Picture.Height
	}
	return web.Render(c, http.StatusOK, views.HomePage(ch, views.HomeData{
		Popular:       rated(cards(rows, popIDs), ratings),
		Recent:        rated(cards(rows, recent), ratings),
		Featured:      picks,
		MostLiked:     likedCards(rows, mostLiked),
		RecentlyLiked: rated(cards(rows, recentlyLiked), ratings),
		Articles:      web.ArticleRows(top.Articles, time.Now()),
		HeroTitle:     home.HeroTitle,
		HeroText:      home.HeroText,
		ShowArticles:  home.ShowArticles,
		Collection:    coll,
	}))
}

func card(it catalog.Item) views.ItemCard {
	return views.ItemCard{ID: it.ID, Name: it.Name, Category: it.Category, PriceCents: it.PriceCents, Stock: it.Stock}
}

// likedCards is the leaderboard's items that are still on sale, in order.
func likedCards(rows map[int64]catalog.Item, liked []social.ItemLikes) []views.LikedItem {
	out := make([]views.LikedItem, 0, len(liked))
	for _, l := range liked {
		if it, ok := rows[l.ItemID]; ok && !it.Archived() {
			out = append(out, views.LikedItem{Item: card(it), Likes: l.Likes})
		}
	}
	return out
}

// rated adds the items' review averages to their cards.
func rated(cs []views.ItemCard, ratings map[int64]reviews.Rating) []views.ItemCard {
	for i := range cs {
		if r, ok := ratings[cs[i].ID]; ok {
			cs[i].RatingCount, cs[i].RatingAverage = r.Count, r.Average
		}
	}
	return cs
}

// cards returns the rows for ids, in the order of ids, skipping missing
// and archived ones (they are off sale).
func cards(rows map[int64]catalog.Item, ids []int64) []views.ItemCard {
	out := make([]views.ItemCard, 0, len(ids))
	for _, id := range ids {
		if it, ok := rows[id]; ok && !it.Archived() {
			out = append(out, card(it))
		}
	}
	return out
}

// featured picks the first featuredCount of the merchant's featured items
// that are in stock.
func featured(rows map[int64]catalog.Item, candidates []int64) []views.ItemCard {
	var in []int64
	for _, id := range candidates {
		if it, ok := rows[id]; ok && it.Stock > 0 && len(in) < featuredCount {
			in = append(in, id)
		}
	}
	return cards(rows, in)
}
