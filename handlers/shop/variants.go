package shop

import (
	"context"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/views"
)

// optionParam prefixes the variant picker's selects: option-<name>.
const optionParam = "option-"

// chosenOptions reads the picker's selects from the query, nil when the
// URL has none.
func chosenOptions(c echo.Context) map[string]string {
	var out map[string]string
	for k, vs := range c.QueryParams() {
		if name, ok := strings.CutPrefix(k, optionParam); ok && len(vs) > 0 {
			if out == nil {
				out = map[string]string{}
			}
			out[name] = vs[0]
		}
	}
	return out
}

// pickedVariant sends the variant picker's choice, made without
// JavaScript (?option-Size=M&option-Colour=Black), to that variant's page
// (?variant=<id>), the one URL per variant the page cache keeps. A
// combination that is not offered leads back to the item with a message.
func (h *Handler) pickedVariant(c echo.Context, id int64, chosen map[string]string) error {
	ctx := c.Request().Context()
	rows, err := h.catalog.CatalogRows(ctx, []int64{id})
	if err != nil {
		return err
	}
	it, ok := rows[id]
	if !ok || it.Archived() {
		return web.NotFound("There is no item with that number.")
	}
	vs, err := h.catalog.Variants(ctx, id)
	if err != nil {
		return err
	}
	if v, ok := catalog.VariantFor(it.Options, vs, chosen); ok {
		return c.Redirect(http.StatusSeeOther, views.VariantURL(id, it.Name, v.ID))
	}
	h.web.SetFlash(c, "That combination is not offered. Choose another.")
	return c.Redirect(http.StatusSeeOther, views.ItemURL(id, it.Name))
}

// shownVariant is the variant an item page shows: the chosen one, else
// the first in stock, else the first.
func shownVariant(vs []catalog.Variant, chosen int64) (catalog.Variant, bool) {
	for _, v := range vs {
		if v.ID == chosen {
			return v, true
		}
	}
	for _, v := range vs {
		if v.Stock > 0 {
			return v, true
		}
	}
	if len(vs) > 0 {
		return vs[0], true
	}
	return catalog.Variant{}, false
}

// variantPicker builds the picker's selects around the shown variant:
// each value leads to the variant with that value and the shown one's
// other values if it is offered, else to the first variant with it.
func variantPicker(names []string, vs []catalog.Variant, shown catalog.Variant) []views.VariantSelect {
	out := make([]views.VariantSelect, len(names))
	for i, name := range names {
		out[i].Name = name
		seen := map[string]bool{}
		for _, v := range vs {
			if i >= len(v.Values) || seen[v.Values[i]] {
				continue
			}
			val := v.Values[i]
			seen[val] = true
			ch := views.VariantChoice{Value: val, VariantID: v.ID, Selected: i < len(shown.Values) && shown.Values[i] == val}
			for _, w := range vs {
				if sameBut(w.Values, shown.Values, i) && w.Values[i] == val {
					ch.VariantID = w.ID
					break
				}
			}
			out[i].Choices = append(out[i].Choices, ch)
		}
	}
	return out
}

// sameBut reports whether a and b agree on every value but the i-th.
func sameBut(a, b []string, i int) bool {
	if len(a) != len(b) || i >= len(a) {
		return false
	}
	for j := range a {
		if j != i && a[j] != b[j] {
			return false
		}
	}
	return true
}

// variantPage fills the item page's variant parts: the shown variant's
// price, stock, SKU and picture, the picker, and every variant's offer
// for the page's script. maxLine is MAX_LINE_QTY.
func variantPage(ctx context.Context, d *views.ItemData, it catalog.Item, vs []catalog.Variant, chosen, maxLine int64) {
	d.SKU = it.SKU
	d.MaxQty = views.BuyMax(d.Item.Stock, maxLine)
	d.SoldOut, d.AllSoldOut = d.Item.Stock <= 0, d.Item.Stock <= 0
	if !it.HasOptions() {
		return
	}
	v, ok := shownVariant(vs, chosen)
	if !ok {
		d.Item.Stock = 0 // options but no variant yet: nothing to sell
		d.SoldOut, d.AllSoldOut = true, true
		return
	}
	sold := v.Sold(it)
	d.VariantID, d.SKU, d.CompareAtCents = v.ID, v.SKU, v.CompareAtCents
	d.Item.PriceCents, d.Item.Stock = sold.PriceCents, sold.Stock
	d.MaxQty = views.BuyMax(sold.Stock, maxLine)
	d.Picker = variantPicker(it.Options, vs, v)
	d.SoldOut, d.AllSoldOut = sold.Stock <= 0, true
	for _, w := range vs {
		s := w.Sold(it)
		d.Offers = append(d.Offers, views.NewOffer(ctx, w.ID, w.SKU, w.Values, s.PriceCents, w.CompareAtCents, w.Stock, maxLine, shownPicture(w.Picture, len(d.Pictures))))
		if w.Stock > 0 {
			d.AllSoldOut = false
		}
	}
	if p := shownPicture(v.Picture, len(d.Pictures)); p > 1 {
		// The variant's picture leads the gallery.
		pics := append([]views.Picture{d.Pictures[p-1]}, d.Pictures[:p-1]...)
		d.Pictures = append(pics, d.Pictures[p:]...)
	}
}

// shownPicture is the position of the picture a variant shows first: its
// own when the item has a picture there, else the item's main one (1).
func shownPicture(p, pictures int) int {
	if p > 1 && p <= pictures {
		return p
	}
	return 1
}

// variantLabel is the options of the item's variant id as a shopper reads
// them ("Size: M"), "" for variant 0 or one not in vs.
func variantLabel(it catalog.Item, vs []catalog.Variant, id int64) string {
	for _, v := range vs {
		if id != 0 && v.ID == id {
			return v.Label(it.Options)
		}
	}
	return ""
}
