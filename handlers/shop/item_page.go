package shop

import (
	"bytes"
	"context"
	"slices"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/pagecache"
	"storefront/views"
)

// ShowItem is an item page, served through the page cache, which decides
// hit, stale, miss or bypass and records the view. The handler's part is
// the visitor's cookies and the per-visitor parts (holes) rendered into
// the page.
func (h *Handler) ShowItem(c echo.Context) error {
	id, slug, err := web.ItemRef(c)
	if err != nil {
		return err
	}
	if chosen := chosenOptions(c); chosen != nil {
		return h.pickedVariant(c, id, chosen)
	}
	s := web.SessionOf(c)
	req := pagecache.ItemPageRequest{ItemID: id, Query: c.QueryParams(), Token: s.Token,
		ClaimedUserID: s.ClaimedID(), Render: h.renderItem, NewToken: h.web.NewVisitToken,
		Slug: slug, SlugMatches: views.SlugMatches}
	v, err := h.pages.ServeItemPage(c.Request().Context(), req)
	if v.Moved {
		// An old or missing slug: the current URL, the query kept (the
		// chosen variant, campaign tags). Nothing was read or recorded.
		return h.web.MovedTo(c, views.ItemURL(id, v.Name))
	}
	if v.DroppedToken || v.Degraded {
		// An unknown token (evicted, signed out, replayed): the visitor is
		// anonymous. With Redis down nobody is anyone.
		h.web.Anonymous(c, s, v.DroppedToken)
	}
	switch {
	case v.NewSession:
		h.web.NewSession(c, s, v.Token)
	case v.Token != "":
		h.web.ApplyState(c, s, v.Session) // also for a 404: its page shows who is signed in
	}
	if err != nil {
		return err
	}
	return h.servePage(c, &pageVisit{c: c, itemID: id, view: &v})
}

// renderItem renders an item page as an anonymous visitor without a flash
// sees it, from the data the page cache gathered (it reads nothing
// itself): the version the page cache stores and shares with everyone.
// Everything per visitor is in a hole, filled in per request.
// The view count is stored with the page: it is the same for everyone and
// a count up to PAGE_CACHE_TTL old is fine, whereas punched in per request
// it would change every response and defeat the ETag.
func (h *Handler) renderItem(ctx context.Context, facts pagecache.PageData) ([]byte, error) {
	// A background render has no request's context: the shop (its name,
	// its currency) is put in whatever context the render has.
	ctx = h.web.WithShop(ctx)
	it, rating := facts.Item, facts.Rating
	d := views.ItemData{
		Pictures:    web.Pictures(facts.Pictures),
		Views:       facts.Views,
		Item:        card(it),
		Description: it.Description,
		Recent:      []views.ItemCard{card(it)},
		Rating:      views.ReviewRating{Average: rating.Average, Count: rating.Count},
		MyReview:    views.ReviewForm{ItemID: it.ID},
	}
	for _, r := range facts.Reviews {
		d.Reviews = append(d.Reviews, views.ReviewView{ID: r.Ref(), User: r.Username, Rating: r.Rating, Body: r.Body,
			When: r.Updated.UTC().Format("2 Jan 2006"), Verified: r.Verified})
	}
	variantPage(ctx, &d, it, facts.Variants, facts.Variant, int64(h.cfg.MaxLineQty))
	d.ViewToBuy, d.HasViewToBuy = facts.ViewToBuy()
	for _, b := range facts.AlsoBought {
		d.AlsoBought = append(d.AlsoBought, views.AlsoBoughtLine{ItemID: b.ID, Name: b.Name, VariantID: b.VariantID, SKU: b.SKU, Variant: b.Variant})
	}
	d.AlsoBoughtOf = variantLabel(it, facts.Variants, facts.AlsoBoughtOf)
	trail, err := h.categoryTrail(ctx, it.Category)
	if err != nil {
		return nil, err
	}
	if trail != nil {
		d.Crumbs = append(slices.Clip(trail), views.Crumb{Name: it.Name})
	}
	chrome := views.Chrome{Title: it.Name, FlashOK: true}
	h.itemSEO(&chrome, facts, trail)
	var buf bytes.Buffer
	err = views.ItemPage(chrome, d).Render(ctx, &buf)
	return buf.Bytes(), err
}
