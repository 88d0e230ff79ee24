package admin

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/store/merchant"
	"storefront/views"
)

// newVariantRows is how many empty rows the form offers for new variants.
const newVariantRows = 4

// VariantsForm is GET /admin/items/:id/variants: the item's options and
// variants, and empty rows to add some.
func (h *Handler) VariantsForm(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	it, err := h.catalog.Item(ctx, id)
	if err != nil {
		return err
	}
	vs, err := h.catalog.Variants(ctx, id)
	if err != nil {
		return err
	}
	f := views.VariantsForm{ItemID: id, ItemName: it.Name}
	cur := h.web.Currency()
	copy(f.Options[:], it.Options)
	for _, v := range vs {
		r := views.VariantRow{ID: web.Itoa(v.ID), SKU: v.SKU, Stock: strconv.FormatInt(v.Stock, 10)}
		copy(r.Values[:], v.Values)
		if v.PriceSet {
			r.Price = cur.AmountInput(v.OwnPrice)
		}
		if v.CompareAtCents > 0 {
			r.CompareAt = cur.AmountInput(v.CompareAtCents)
		}
		if v.Picture > 0 {
			r.Picture = strconv.Itoa(v.Picture)
		}
		f.Rows = append(f.Rows, r)
	}
	for range newVariantRows {
		f.Rows = append(f.Rows, views.VariantRow{})
	}
	return web.Render(c, http.StatusOK, views.AdminVariantsPage(h.web.Chrome(c, "Variants"), f))
}

// SaveVariants is POST /admin/items/:id/variants: the options and every
// variant row at once. Anything wrong refuses the whole form (422, with
// the form as typed) and changes nothing.
func (h *Handler) SaveVariants(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	it, err := h.catalog.Item(ctx, id)
	if err != nil {
		return err
	}
	form, err := web.PostForm(c)
	if err != nil {
		return err
	}
	f, set, msg := readVariantsForm(h.web.Currency(), form)
	f.ItemID, f.ItemName = id, it.Name
	if msg == "" {
		err = h.catalog.SaveVariants(ctx, id, set)
		var ve *catalog.VariantError
		if errors.As(err, &ve) {
			msg = ve.Msg
		} else if err != nil {
			return err
		}
	}
	if msg != "" {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
		}
		f.Error = msg
		return web.Render(c, http.StatusUnprocessableEntity, views.AdminVariantsPage(h.web.Chrome(c, "Variants"), f))
	}
	h.web.Audit(c, "save variants", "item "+web.Itoa(id), "options", strings.Join(set.Options, ","), "variants", len(set.Variants))
	return h.web.Done(c, "Saved the variants of "+it.Name+".", "/admin/items/"+web.Itoa(id)+"/variants")
}

// variantFields are the form's per-row fields, each sent once per row.
var variantFields = []string{"id", "sku", "value1", "value2", "value3", "price", "compare_at", "stock", "picture"}

// readVariantsForm reads the form as typed and as a set, or says what is
// wrong with it. Rows without a SKU and without an id are empty new rows.
func readVariantsForm(cur merchant.Currency, form map[string][]string) (views.VariantsForm, catalog.VariantSet, string) {
	var f views.VariantsForm
	var set catalog.VariantSet
	for i := range f.Options {
		f.Options[i] = strings.TrimSpace(first(form["option"+strconv.Itoa(i+1)]))
		if f.Options[i] != "" {
			set.Options = append(set.Options, f.Options[i])
		}
	}
	n := len(form["sku"])
	for _, name := range variantFields {
		if len(form[name]) != n {
			return f, set, "Every variant row must send all of its fields."
		}
	}
	if n > catalog.MaxVariants+newVariantRows {
		return f, set, "Too many rows."
	}
	msg := ""
	for i := range n {
		r := views.VariantRow{ID: strings.TrimSpace(form["id"][i]), SKU: strings.TrimSpace(form["sku"][i]),
			Price: strings.TrimSpace(form["price"][i]), CompareAt: strings.TrimSpace(form["compare_at"][i]),
			Stock: strings.TrimSpace(form["stock"][i]), Picture: strings.TrimSpace(form["picture"][i])}
		for j := range r.Values {
			r.Values[j] = strings.TrimSpace(form["value"+strconv.Itoa(j+1)][i])
		}
		f.Rows = append(f.Rows, r)
		if r.ID == "" && r.SKU == "" {
			continue
		}
		v, problem := parseVariantRow(cur, r, len(set.Options))
		if msg == "" {
			msg = problem
		}
		set.Variants = append(set.Variants, v)
	}
	return f, set, msg
}

// parseVariantRow reads one row, or says what is wrong with it.
func parseVariantRow(cur merchant.Currency, r views.VariantRow, options int) (catalog.Variant, string) {
	var v catalog.Variant
	name := r.SKU
	if name == "" {
		name = "a variant"
	}
	if r.ID != "" {
		id, err := strconv.ParseInt(r.ID, 10, 64)
		if err != nil || id <= 0 {
			return v, "A variant row names no variant of this item."
		}
		v.ID = id
	}
	v.SKU = r.SKU
	for j := range options {
		v.Values = append(v.Values, r.Values[j])
	}
	var ok bool
	if r.Price != "" {
		if v.OwnPrice, ok = parsePrice(cur, r.Price); !ok {
			return v, priceRule(cur, "The price of "+name)
		}
		v.PriceSet = true
	}
	if r.CompareAt != "" {
		if v.CompareAtCents, ok = parsePrice(cur, r.CompareAt); !ok {
			return v, priceRule(cur, "The compare-at price of "+name)
		}
	}
	stock, err := strconv.ParseInt(r.Stock, 10, 64)
	if err != nil || stock < 0 || stock > catalog.MaxVariantStock {
		return v, "The stock of " + name + " must be a whole number from 0 to " + strconv.Itoa(catalog.MaxVariantStock) + "."
	}
	v.Stock = stock
	if r.Picture != "" {
		if v.Picture, err = strconv.Atoi(r.Picture); err != nil || v.Picture < 0 {
			return v, "The picture of " + name + " must be the number of one of the item's pictures."
		}
	}
	return v, ""
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}
