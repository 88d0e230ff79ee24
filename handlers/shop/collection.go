package shop

import (
	"context"
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/collections"
	"storefront/store/platform"
	"storefront/views"
)

// ShowCollection is GET /collections/:slug: a collection's items on sale,
// in its order, a page at a time.
func (h *Handler) ShowCollection(c echo.Context) error {
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	slug := c.Param("slug")
	if len(slug) > 80 {
		return web.NotFound("That collection does not exist.")
	}
	coll, err := h.collections.BySlug(ctx, slug)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("That collection does not exist.")
	}
	if err != nil {
		return err
	}
	d, err := h.collectionData(ctx, coll, page, h.cfg.ItemsPerPage)
	if err != nil {
		return err
	}
	base := listParams{Base: views.CollectionURL(coll.Slug)}
	d.Pager = numberedPager(base, page, h.cfg.ItemsPerPage, d.Total)
	ch := h.web.Chrome(c, coll.Title)
	ch.Description = views.MetaDescription(coll.Blurb)
	if ch.Description == "" {
		ch.Description = coll.Title + " at " + h.web.Shop().Name + "."
	}
	url := h.cfg.ShopURL + views.CollectionURL(coll.Slug)
	ch.Social = views.Social{Type: "website", Title: coll.Title + " · " + h.web.Shop().Name, Description: ch.Description, URL: url}
	if len(d.Items) > 0 && d.Items[0].Picture.Largest != "" {
		p := d.Items[0].Picture
		ch.Social.Image, ch.Social.ImageWidth, ch.Social.ImageHt = h.cfg.ShopURL+p.Largest, p.Width, p.Height
	}
	ch.LD = []views.LD{views.BreadcrumbLD([]views.Crumb{{Name: "Shop", URL: h.cfg.ShopURL + "/items"}, {Name: coll.Title, URL: url}})}
	return web.Render(c, http.StatusOK, views.CollectionPage(ch, d))
}

// collectionData reads one page of a collection's items as cards, with
// their pictures and ratings.
func (h *Handler) collectionData(ctx context.Context, coll collections.Collection, page, perPage int) (views.CollectionData, error) {
	d := views.CollectionData{Slug: coll.Slug, Title: coll.Title, Blurb: coll.Blurb}
	if page > web.MaxPage {
		return d, nil
	}
	ids, total, err := h.collections.Page(ctx, coll, page, perPage)
	if err != nil {
		return d, err
	}
	d.Total = total
	rows, err := h.catalog.Items(ctx, ids)
	if err != nil {
		return d, err
	}
	ratings, err := h.reviews.Ratings(ctx, ids)
	if err != nil {
		return d, err
	}
	d.Items = rated(cards(rows, ids), ratings)
	return d, h.withPictures(ctx, d.Items)
}

// homeCollection is the collection the home page shows, nil for none (or
// one removed since).
func (h *Handler) homeCollection(ctx context.Context, slug string) (*views.CollectionData, error) {
	if slug == "" || h.collections == nil {
		return nil, nil
	}
	coll, err := h.collections.BySlug(ctx, slug)
	if errors.Is(err, platform.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	d, err := h.collectionData(ctx, coll, 1, featuredCount)
	return &d, err
}
