package shop

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/views"
)

// apiItem is GET /api/items/:id's answer: the item's row, column names as
// keys (cached_at when it came from the row cache), and what the item page
// shows of it, written out as the page writes it. An item without options
// sells as itself (price, stock_text, max_qty); one with options sells only
// through its variants, each as the page would show it (its price, "was"
// price, stock and SKU); ?variant=<id> adds that variant on its own.
type apiItem struct {
	catalog.Item
	CachedAt  float64              `json:"cached_at,omitempty"`
	Price     string               `json:"price,omitempty"`
	StockText string               `json:"stock_text,omitempty"`
	MaxQty    int64                `json:"max_qty,omitempty"`
	Variants  []views.VariantOffer `json:"variants,omitempty"`
	Variant   *views.VariantOffer  `json:"variant,omitempty"`
}

// APIItem is GET /api/items/:id (?variant=<id>): the item from the row
// cache (`inv:<id>`, X-Row-Cache: HIT) when the row is scheduled there,
// else from the database (MISS); an archived item is 410 Gone, like its
// page, and a variant that is not one of the item's a 404. Item pages poll
// it for live price and stock, per variant.
func (h *Handler) APIItem(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	var chosen int64
	if raw := c.QueryParam("variant"); raw != "" {
		if chosen, err = strconv.ParseInt(raw, 10, 64); err != nil || chosen <= 0 {
			return web.NotFound("There is no such variant of this item.")
		}
	}
	ctx := c.Request().Context()
	row, cached, err := h.catalog.ItemRow(ctx, id)
	if err != nil {
		return err
	}
	a := apiItem{Item: row.Item, CachedAt: row.CachedAt}
	maxLine := int64(h.cfg.MaxLineQty)
	if !row.HasOptions() {
		a.Price, a.StockText, a.MaxQty = views.Money(ctx, row.PriceCents), views.StockText(row.Stock), views.BuyMax(row.Stock, maxLine)
	}
	for _, v := range row.Variants {
		o := views.NewOffer(ctx, v.ID, v.SKU, v.Values, v.PriceCents, v.CompareAtCents, v.Stock, maxLine, v.Picture)
		a.Variants = append(a.Variants, o)
		if v.ID == chosen {
			a.Variant = &o
		}
	}
	if chosen != 0 && a.Variant == nil {
		return web.NotFound("There is no such variant of this item.")
	}
	hit := "MISS"
	if cached {
		hit = "HIT"
	}
	hdr := c.Response().Header()
	hdr.Set("X-Row-Cache", hit)
	hdr.Set("Cache-Control", "no-cache")
	return c.JSON(http.StatusOK, a)
}
