package shop

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/pricing"
	"storefront/views"
)

// cartOwner is whose cart the visitor sees: the account's when signed in,
// else the guest session's.
func cartOwner(s *web.Session) cart.Owner {
	return cart.Owner{UserID: s.UserID, Token: s.Token}
}

// ShowCart is the cart page: the lines at current prices and the subtotal.
func (h *Handler) ShowCart(c echo.Context) error {
	return h.renderCart(c, http.StatusOK, "")
}

// renderCart renders the cart page with an optional message.
func (h *Handler) renderCart(c echo.Context, status int, msg string) error {
	return h.renderCartWith(c, status, msg, nil)
}

// renderCartWith is renderCart; edit adjusts the page model.
func (h *Handler) renderCartWith(c echo.Context, status int, msg string, edit func(*views.CartData)) error {
	basket, rows, err := h.loadCart(c)
	if err != nil {
		return err
	}
	s := web.SessionOf(c)
	s.CartCount = h.web.BuyableCount(c, basket.Lines) // the header counts what can be bought
	d := h.cartView(basket, rows, nil)
	d.Error = msg
	if basket.Code != "" && len(d.Lines) > 0 {
		q, refused, err := h.pricing.Quote(c.Request().Context(), nil, pricing.Request{Lines: lineAmounts(d.Lines), Code: basket.Code})
		if err != nil {
			return err
		}
		d.Discount = discountLine(h.web.Shop().Currency, q, basket.Code, refused)
		if q.Code.Kind == pricing.KindFreeShipping {
			d.Discount.AmountCents = 0 // the delivery is priced at checkout
		}
	}
	if edit != nil {
		edit(&d)
	}
	if err := h.pictureLines(c.Request().Context(), d.Lines); err != nil {
		return err
	}
	return web.Render(c, status, views.CartPage(h.web.Chrome(c, "Your cart"), d))
}

// cartRows are the catalog rows of a cart's lines: its items and the
// variants its lines name.
type cartRows struct {
	items    map[int64]catalog.Item
	variants map[int64]catalog.Variant
}

// loadCart reads the visitor's cart and its catalog rows.
func (h *Handler) loadCart(c echo.Context) (cart.Cart, cartRows, error) {
	s := web.SessionOf(c)
	if s.Token == "" {
		return cart.Cart{}, cartRows{}, nil
	}
	ctx := c.Request().Context()
	basket, err := h.carts.Cart(ctx, cartOwner(s))
	if err != nil {
		return cart.Cart{}, cartRows{}, err
	}
	rows, err := h.readCartRows(ctx, basket, cartRows{})
	return basket, rows, err
}

// readCartRows reads the rows of the cart's lines that known lacks.
func (h *Handler) readCartRows(ctx context.Context, basket cart.Cart, known cartRows) (cartRows, error) {
	var missing []int64
	for _, id := range basket.ItemIDs() {
		if _, ok := known.items[id]; !ok {
			missing = append(missing, id)
		}
	}
	rows := cartRows{items: map[int64]catalog.Item{}, variants: map[int64]catalog.Variant{}}
	if len(missing) > 0 {
		more, err := h.catalog.CatalogRows(ctx, missing)
		if err != nil {
			return cartRows{}, err
		}
		rows.items = more
	}
	for id, it := range known.items {
		rows.items[id] = it
	}
	var vmissing []int64
	for _, id := range basket.VariantIDs() {
		if _, ok := known.variants[id]; !ok {
			vmissing = append(vmissing, id)
		}
	}
	if len(vmissing) > 0 {
		more, err := h.catalog.VariantsByID(ctx, vmissing)
		if err != nil {
			return cartRows{}, err
		}
		rows.variants = more
	}
	for id, v := range known.variants {
		rows.variants[id] = v
	}
	return rows, nil
}

// cartView builds the page model. A line the catalog cannot fill as it is
// says why; problems (from a refused checkout, by the line's field) take
// precedence. A line no longer sold (archived, gone from the catalog, a
// variant removed, or an item that gained options since) stays in the
// cart until the shopper removes it, but is out of the subtotal and its
// count.
func (h *Handler) cartView(basket cart.Cart, rows cartRows, problems map[string]string) views.CartData {
	var d views.CartData
	for _, l := range basket.Lines {
		item, found := rows.items[l.ItemID]
		it, v, ok := catalog.SellableAs(item, l.VariantID, rows.variants)
		ok = ok && found
		line := views.CartLine{ItemID: l.ItemID, VariantID: l.VariantID, SKU: v.SKU, Variant: v.Label(item.Options), VariantPicture: v.Picture,
			Name: it.Name, Category: it.Category, PriceCents: it.PriceCents, Qty: l.Qty,
			MaxQty: max(min(it.Stock, int64(h.cfg.MaxLineQty)), l.Qty)}
		switch {
		case !ok || it.Archived():
			line.Gone, line.PriceCents = true, 0
			line.Problem = noLongerSold
			if !found {
				line.Name = "An item no longer in the shop"
			}
		case it.Stock <= 0:
			line.Problem = "Sold out. Remove it to check out."
		case it.Stock < l.Qty:
			line.Problem = fmt.Sprintf("Only %d left. Lower the quantity to check out.", it.Stock)
		}
		if p, ok := problems[l.Field()]; ok {
			line.Problem = p
		}
		d.Lines = append(d.Lines, line)
		d.SubtotalCents += line.TotalCents()
		if !line.Gone {
			d.Count += l.Qty
		}
	}
	return d
}

// noLongerSold is what a cart line of an item no longer sold says.
const noLongerSold = "No longer sold: remove it to check out."

// goneLines names the cart's lines that are no longer sold, for the
// message above the checkout form ("" when there are none).
func goneLines(lines []views.CartLine) string {
	var names []string
	for _, l := range lines {
		if l.Gone {
			names = append(names, l.Name)
		}
	}
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0] + " is no longer sold. Remove it from your cart to check out."
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] +
		" are no longer sold. Remove them from your cart to check out."
}

// pictureLines sets each cart line's picture: its variant's own, else its
// item's main one.
func (h *Handler) pictureLines(ctx context.Context, lines []views.CartLine) error {
	refs := make([]lineRef, len(lines))
	for i, l := range lines {
		refs[i] = lineRef{item: l.ItemID, picture: l.VariantPicture}
	}
	pics, err := h.linePictures(ctx, refs)
	if err != nil {
		return err
	}
	for i := range lines {
		lines[i].Picture = pics[i]
	}
	return nil
}

// qtyRE is an optionally signed whole number, as typed in a number field.
var qtyRE = regexp.MustCompile(`^[+-]?[0-9]+$`)

// idRE is an item id as our forms send it.
var idRE = regexp.MustCompile(`^[1-9][0-9]{0,17}$`)

// cartForm is POST /cart's fields: the item, its variant by id (the cart
// page's forms) or by its options' values (the item page's selects,
// option-<name>), and the quantity.
type cartForm struct {
	item, variant int64
	options       map[string]string
	qty           string
}

// readCartForm reads exactly one item, at most one variant, each option at
// most once and one qty from the posted form. Anything our forms cannot
// produce (a missing or repeated field, an item or variant that is not an
// id) is a malformed request (400).
func readCartForm(c echo.Context) (cartForm, error) {
	form, err := web.PostForm(c)
	if err != nil {
		return cartForm{}, err
	}
	items, variants, qtys := form["item"], form["variant"], form["qty"]
	if len(items) == 0 || len(qtys) == 0 {
		return cartForm{}, web.BadRequest("The form must say which item and what quantity.")
	}
	if len(items) > 1 || len(qtys) > 1 || len(variants) > 1 {
		return cartForm{}, web.BadRequest("Send the item, its variant and the quantity once each.")
	}
	if !idRE.MatchString(items[0]) {
		return cartForm{}, web.BadRequest("The item number is not valid.")
	}
	f := cartForm{qty: qtys[0]}
	f.item, _ = strconv.ParseInt(items[0], 10, 64)
	if len(variants) == 1 && variants[0] != "" {
		if !idRE.MatchString(variants[0]) {
			return cartForm{}, web.BadRequest("The variant number is not valid.")
		}
		f.variant, _ = strconv.ParseInt(variants[0], 10, 64)
	}
	for k, vs := range form {
		name, ok := strings.CutPrefix(k, optionParam)
		if !ok {
			continue
		}
		if len(vs) != 1 || len(f.options) >= catalog.MaxOptions {
			return cartForm{}, web.BadRequest("Send each option once.")
		}
		if f.options == nil {
			f.options = map[string]string{}
		}
		f.options[name] = vs[0]
	}
	return f, nil
}

// parseQty reads a typed quantity: a whole number, where 0 or less means
// "remove". It returns a message for the shopper when the value is not one.
func parseQty(raw string, maxQty int) (int64, string) {
	raw = strings.TrimSpace(raw)
	rangeMsg := fmt.Sprintf("Enter a whole number from 0 to %d.", maxQty)
	switch {
	case raw == "":
		return 0, "Enter a quantity. " + rangeMsg
	case !qtyRE.MatchString(raw):
		return 0, "The quantity must be a whole number. " + rangeMsg
	}
	digits := strings.TrimLeft(strings.TrimLeft(raw, "+-"), "0")
	if strings.HasPrefix(raw, "-") || digits == "" {
		return 0, "" // zero or negative (-0 included): remove the line
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > int64(maxQty) {
		return 0, fmt.Sprintf("You can buy at most %d of one item.", maxQty)
	}
	return n, ""
}

// SetCart sets the quantity of one variant of an item (POST /cart: item,
// variant, qty; variant is required when the item has options); qty <= 0
// removes the line. Errors change nothing: 400 for a malformed request,
// 422 with the cart page (or JSON) for a quantity, item or variant we
// cannot take.
func (h *Handler) SetCart(c echo.Context) error {
	f, err := readCartForm(c)
	if err != nil {
		return err
	}
	itemID := f.item
	qty, msg := parseQty(f.qty, h.cfg.MaxLineQty)
	if msg != "" {
		return h.cartError(c, f, msg)
	}
	ctx := c.Request().Context()
	var name string
	var known cartRows
	if f.options != nil {
		// The item page's selects: what they say is what is added, whatever
		// variant the page showed when it was rendered.
		if known, msg, err = h.chooseVariant(ctx, &f); err != nil {
			return err
		}
		if msg != "" {
			return h.cartError(c, f, msg)
		}
	}
	if qty > 0 { // removing needs no catalog check: the item may be gone
		if known.items == nil {
			rows, err := h.catalog.CatalogRows(ctx, []int64{itemID})
			if err != nil {
				return err
			}
			known = cartRows{items: rows}
		}
		if f.variant != 0 && known.variants == nil {
			if known.variants, err = h.catalog.VariantsByID(ctx, []int64{f.variant}); err != nil {
				return err
			}
		}
		item, ok := known.items[itemID]
		it, v, sellable := catalog.SellableAs(item, f.variant, known.variants)
		name = it.Name
		if label := v.Label(item.Options); label != "" {
			name += " (" + label + ")"
		}
		if msg = variantProblem(item, ok, f.variant, sellable); msg == "" {
			msg = stockProblem(it, name, ok, qty)
		}
		if msg != "" {
			return h.cartError(c, f, msg)
		}
	}
	basket := cart.Cart{}
	if qty > 0 || web.SessionOf(c).Token != "" { // a visitor without a session has nothing to remove
		s, err := h.web.EnsureSession(c)
		if err != nil {
			return err
		}
		basket, err = h.carts.SetLine(ctx, cartOwner(s), cart.Line{ItemID: itemID, VariantID: f.variant, Qty: qty})
		if errors.Is(err, cart.ErrFull) {
			return h.cartError(c, f, fmt.Sprintf("Your cart holds at most %d different items. Remove one to add another.", cart.MaxLines))
		}
		if err != nil {
			return err
		}
		s.CartCount = h.web.BuyableCount(c, basket.Lines)
	}
	flash := "Removed from your cart."
	if qty > 0 {
		flash = fmt.Sprintf("Your cart has %d × %s.", qty, name)
	}
	if web.WantsJSON(c) {
		return h.cartJSON(c, http.StatusOK, cart.Line{ItemID: itemID, VariantID: f.variant}, basket, flash, known)
	}
	h.web.SetFlash(c, flash)
	return web.Redirect(c, "/cart")
}

// variantProblem says why the variant cannot go in the cart, if so: the
// item has options and none was chosen, or the variant is not one of the
// item's.
func variantProblem(it catalog.Item, found bool, variantID int64, sellable bool) string {
	switch {
	case !found || it.Archived() || sellable:
		return ""
	case variantID == 0:
		return "Choose " + strings.ToLower(strings.Join(it.Options, " and ")) + " of " + it.Name + " first."
	}
	return "That choice is not one of " + it.Name + "'s."
}

// chooseVariant sets f's variant to the one its options choose, reading
// the item's row and variants (returned as known). msg says why there is
// none: the item has no options, an option is missing, or no variant has
// that combination.
func (h *Handler) chooseVariant(ctx context.Context, f *cartForm) (known cartRows, msg string, err error) {
	rows, err := h.catalog.CatalogRows(ctx, []int64{f.item})
	if err != nil {
		return cartRows{}, "", err
	}
	it, ok := rows[f.item]
	known = cartRows{items: rows}
	switch {
	case !ok:
		return known, "That item is not in the catalog.", nil
	case !it.HasOptions():
		return known, "That choice is not one of " + it.Name + "'s.", nil
	}
	for _, name := range it.Options {
		if f.options[name] == "" {
			return known, "Choose " + strings.ToLower(strings.Join(it.Options, " and ")) + " of " + it.Name + " first.", nil
		}
	}
	vs, err := h.catalog.Variants(ctx, f.item)
	if err != nil {
		return cartRows{}, "", err
	}
	v, ok := catalog.VariantFor(it.Options, vs, f.options)
	if !ok {
		return known, it.Name + " is not made in " + chosenLabel(it.Options, f.options) + ". Choose another combination.", nil
	}
	f.variant = v.ID
	known.variants = map[int64]catalog.Variant{v.ID: v}
	return known, "", nil
}

// chosenLabel writes chosen options as a variant's label does ("Size: XL,
// Colour: Black").
func chosenLabel(names []string, chosen map[string]string) string {
	v := catalog.Variant{Values: make([]string, len(names))}
	for i, n := range names {
		v.Values[i] = chosen[n]
	}
	return v.Label(names)
}

// stockProblem says why qty of an item (its variant named name) cannot go
// in the cart, if so.
func stockProblem(it catalog.Item, name string, ok bool, qty int64) string {
	switch {
	case !ok:
		return "That item is not in the catalog."
	case it.Archived():
		return it.Name + " is no longer sold."
	case it.Stock <= 0:
		return name + " is sold out."
	case qty > it.Stock:
		return fmt.Sprintf("Only %d of %s are in stock.", it.Stock, name)
	}
	return ""
}

// cartError refuses a cart form: the cart page with the message (422), or
// JSON with the message and the line as it still is.
func (h *Handler) cartError(c echo.Context, f cartForm, msg string) error {
	if !web.WantsJSON(c) {
		return h.renderCart(c, http.StatusUnprocessableEntity, msg)
	}
	basket, _, err := h.loadCart(c)
	if err != nil {
		return err
	}
	return h.cartJSON(c, http.StatusUnprocessableEntity, cart.Line{ItemID: f.item, VariantID: f.variant}, basket, msg, cartRows{})
}

// cartLineJSON is one line of the JSON answer, as the cart page shows
// it: Variant is its options ("Size: M"), MaxQty its quantity field's
// bound and Problem why it cannot be ordered as it is ("" for nothing).
type cartLineJSON struct {
	ItemID     int64  `json:"item_id"`
	VariantID  int64  `json:"variant_id"`
	SKU        string `json:"sku"`
	Name       string `json:"name"`
	Variant    string `json:"variant"`
	Quantity   int64  `json:"quantity"`
	MaxQty     int64  `json:"max_qty"`
	PriceCents int64  `json:"price_cents"`
	Price      string `json:"price"`
	TotalCents int64  `json:"total_cents"`
	Total      string `json:"total"`
	Problem    string `json:"problem"`
}

// cartAnswer is POST /cart's JSON: the line as it now is (null once
// removed), the cart's count (total quantity, as in the header), and the
// subtotal with the quantity it is for (the lines still sold).
type cartAnswer struct {
	Item          int64         `json:"item"`
	Variant       int64         `json:"variant"`
	Line          *cartLineJSON `json:"line"`
	Quantity      int64         `json:"quantity"`
	CartCount     int64         `json:"cart_count"`
	SubtotalCount int64         `json:"subtotal_count"`
	Lines         int           `json:"lines"`
	TotalCents    int64         `json:"total_cents"`
	Total         string        `json:"total"`
	Message       string        `json:"message,omitempty"`
	Error         string        `json:"error,omitempty"`
}

// cartJSON answers with the cart's state and the line just set. Rows
// already read (known) are not read again: a cart holding only the item
// just set costs no query.
func (h *Handler) cartJSON(c echo.Context, status int, set cart.Line, basket cart.Cart, msg string, known cartRows) error {
	rows, err := h.readCartRows(c.Request().Context(), basket, known)
	if err != nil {
		return err
	}
	d := h.cartView(basket, rows, nil)
	a := cartAnswer{Item: set.ItemID, Variant: set.VariantID, CartCount: h.web.BuyableCount(c, basket.Lines), SubtotalCount: d.Count, Lines: len(basket.Lines),
		TotalCents: d.SubtotalCents, Total: views.Money(c.Request().Context(), d.SubtotalCents)}
	if status >= 400 {
		a.Error = msg
	} else {
		a.Message = msg
	}
	for _, l := range d.Lines {
		if l.ItemID == set.ItemID && l.VariantID == set.VariantID {
			a.Quantity = l.Qty
			a.Line = &cartLineJSON{ItemID: l.ItemID, VariantID: l.VariantID, SKU: l.SKU, Name: l.Name, Variant: l.Variant, Quantity: l.Qty,
				MaxQty: l.MaxQty, PriceCents: l.PriceCents, Price: views.Money(c.Request().Context(), l.PriceCents), TotalCents: l.TotalCents(), Total: views.Money(c.Request().Context(), l.TotalCents()),
				Problem: l.Problem}
		}
	}
	web.NoStore(c)
	return c.JSON(status, a)
}

// lineAmounts are the lines' totals at current prices, for a quote.
func lineAmounts(lines []views.CartLine) []int64 {
	out := make([]int64, 0, len(lines))
	for _, l := range lines {
		if !l.Gone {
			out = append(out, l.TotalCents())
		}
	}
	return out
}
