package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/platform"
	"storefront/store/pricing"
)

// MaxEditQty is the largest quantity an edit sets on one line.
const MaxEditQty = 999

// ReasonEdit is the reason of the refund an edit that lowered the total
// gave back.
const ReasonEdit = "edit"

// Why an edit was refused (EditError.Reason).
const (
	EditNotEditable   = "not_editable"   // shipped, delivered, cancelled, or awaiting its first payment
	EditConflict      = "conflict"       // the order changed since the form was shown
	EditBadQty        = "bad_qty"        // a quantity that is not 0 to MaxEditQty, or a line the order does not have
	EditUnknownSKU    = "unknown_sku"    // no item or variant has that SKU
	EditNeedsVariant  = "needs_variant"  // the SKU names an item that sells through its variants
	EditOversell      = "oversell"       // not enough stock for the lines added or raised
	EditEmpty         = "empty"          // no line left: cancel the order instead
	EditTooManyLines  = "too_many_lines" // more lines than a cart holds
	EditBelowRefunded = "below_refunded" // the new total is below what was refunded already
	EditNoRefund      = "no_refund"      // the money to give back has no payment method to go through
	EditNothing       = "nothing"        // the form changes nothing
)

// EditError means an edit was refused and nothing changed.
type EditError struct {
	Reason   string
	Msg      string        // for the staff member, in words
	Problems []LineProblem // the lines short of stock (EditOversell)
	Status   string        // the order's status (EditNotEditable)
}

func (e *EditError) Error() string { return "edit order: " + e.Msg }

// LineRef names one line of an order: an item and its variant (0: an
// item without options).
type LineRef struct{ ItemID, VariantID int64 }

// EditRequest is a staff member's edit of an order's lines.
type EditRequest struct {
	OrderID int64
	// Version is the order's EditVersion the form showed: an order edited
	// since refuses (EditConflict). Negative skips the check.
	Version int64
	// Qty sets the quantity of lines the order has (0 removes one); lines
	// not named keep theirs.
	Qty map[LineRef]int64
	// AddSKU adds AddQty of the item or variant with that SKU (to its
	// line when the order has one), at its price now.
	AddSKU string
	AddQty int64
	Actor  string // the staff member's account name
}

// Edit is what a committed edit did.
type Edit struct {
	Before, After Order
	// Refund is the difference given back (ID 0: none); DueCents what
	// the shopper is asked to pay now on top of what they paid.
	Refund   Refund
	DueCents int64
	// CodeDropped is the discount code that came off (its minimum no
	// longer met), "" for none.
	CodeDropped string
	// Collect is the difference to collect outside the shop, for an
	// order paid through a method the shop cannot ask again (an invoice
	// or cash marked paid).
	Collect int64
	Note    string // the order note that records the edit
}

// Editable reports whether an order in status may be edited: placed and
// not shipped. An order awaiting its first card payment is not (its
// payment page is for the total it was placed with: it is paid or
// cancelled first).
func Editable(status string) bool {
	return status == OrderPending || status == OrderProcessed || status == OrderPaid
}

// EditOrder changes an order's lines before it ships, in one transaction:
// the order's row is taken first by the update of its version (so two
// edits, or an edit and a move, take turns, and a form shown before
// another edit is refused), the stock of each changed line taken
// or put back by variant in item then variant order (the checkout's), the
// order priced again through store/pricing (delivery, tax, and its code,
// which comes off when the new lines no longer reach its minimum, its use
// given back), and the difference settled: for an order already charged, a
// lower total takes the refund of the difference (owed to the order's
// payment method, asked of the provider after the commit), a higher one
// asks the shopper for it (DueCents; a card order's page offers the
// payment). Every edit is an order note. A refusal is an *EditError and
// changes nothing.
func (s *Service) EditOrder(ctx context.Context, req EditRequest) (Edit, error) {
	e, err := s.editTx(ctx, req)
	if err != nil {
		return Edit{}, err
	}
	if e.Refund.ID != 0 {
		s.refundNow(ctx, e.Refund) // bounded by ctx's deadline; what is left stays owed
		if r, err := s.refundByID(context.WithoutCancel(ctx), e.Refund.ID); err == nil {
			e.Refund = r
		}
	}
	ctx = context.WithoutCancel(ctx)
	if ids := changedItems(e.Before.Lines, e.After.Lines); len(ids) > 0 {
		if err := s.catalog.Changed(ctx, catalog.Change{IDs: ids, Search: true}); err != nil {
			s.log.Error("order edited: item change", "order", req.OrderID, "err", err)
		}
	}
	if after, err := s.OrderAny(ctx, req.OrderID); err == nil {
		e.After = after
	}
	return e, nil
}

// editTx is EditOrder's transaction.
func (s *Service) editTx(ctx context.Context, req EditRequest) (Edit, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Edit{}, fmt.Errorf("edit order %d: %w", req.OrderID, err)
	}
	defer tx.Rollback()
	// The order's row first (the cancel's lock order: the order, then the
	// stock, then the code): a second edit, a move or a refund of this
	// order waits for this one to commit, then reads what it left.
	var version int64
	err = tx.QueryRowContext(ctx, `UPDATE orders SET edit_version = edit_version + 1 WHERE id = $1 RETURNING edit_version`, req.OrderID).Scan(&version)
	if errors.Is(err, sql.ErrNoRows) {
		return Edit{}, platform.ErrNotFound
	}
	if err != nil {
		return Edit{}, fmt.Errorf("edit order %d: %w", req.OrderID, err)
	}
	o, err := readOrderRow(ctx, tx, 0, req.OrderID)
	if err != nil {
		return Edit{}, err
	}
	o.EditVersion = version - 1
	if !Editable(o.Status) {
		return Edit{}, &EditError{Reason: EditNotEditable, Status: o.Status, Msg: notEditableMsg(o.Status)}
	}
	if req.Version >= 0 && req.Version != o.EditVersion {
		return Edit{}, conflict()
	}
	lines, err := s.editedLines(ctx, tx, o, req)
	if err != nil {
		return Edit{}, err
	}
	if err := moveStock(ctx, tx, o.Lines, lines); err != nil {
		return Edit{}, err
	}
	n := o
	n.Lines, n.ItemCount = lines, 0
	amounts := make([]int64, len(lines))
	for i, l := range lines {
		amounts[i] = l.TotalCents()
		n.ItemCount += l.Qty
	}
	q, dropped, err := s.prices.Reprice(ctx, tx, pricing.Request{Lines: amounts, Country: o.Address.Country, Method: o.Shipping, Code: o.DiscountCode})
	if err != nil {
		return Edit{}, fmt.Errorf("edit order %d: %w", o.ID, err)
	}
	e := Edit{Before: o}
	if o.DiscountCode != "" && (dropped || q.Code.ID == 0) {
		e.CodeDropped = o.DiscountCode
		if err := pricing.GiveBack(ctx, tx, o.ID); err != nil {
			return Edit{}, err
		}
	}
	n.SubtotalCents, n.DiscountCents, n.DiscountCode = q.Subtotal, q.Discount, q.Code.Code
	n.ShippingCents, n.TaxCents, n.TaxMode, n.TotalCents = q.Shipping, q.Tax, q.TaxMode, q.Total
	n.GoodsDiscountCents, n.ShippingTaxCents = q.GoodsDiscount, q.ShippingTax
	if err := s.settle(ctx, tx, o, &n, &e, req.Actor); err != nil {
		return Edit{}, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM order_lines WHERE order_id = $1`, o.ID); err != nil {
		return Edit{}, fmt.Errorf("edit order %d: %w", o.ID, err)
	}
	if err := insertOrderLines(ctx, tx, n); err != nil {
		return Edit{}, err
	}
	if n.DueCents != o.DueCents {
		n.DueSession = "" // a page for the old amount is not this one's
	}
	if _, err := tx.ExecContext(ctx, `UPDATE orders SET total_cents = $1, subtotal_cents = $2, discount_cents = $3, discount_code = $4,
		shipping_cents = $5, tax_cents = $6, tax_mode = $7, goods_discount_cents = $8, shipping_tax_cents = $9,
		paid_cents = $10, refunded_cents = $11, due_cents = $12, due_session = $13 WHERE id = $14`,
		n.TotalCents, n.SubtotalCents, n.DiscountCents, n.DiscountCode, n.ShippingCents, n.TaxCents, n.TaxMode,
		n.GoodsDiscountCents, n.ShippingTaxCents, n.PaidCents, n.RefundedCents, n.DueCents, n.DueSession, o.ID); err != nil {
		return Edit{}, fmt.Errorf("edit order %d: %w", o.ID, err)
	}
	if e.Refund.Cents > 0 {
		if err := s.insertRefundTx(ctx, tx, &e.Refund); err != nil {
			return Edit{}, err
		}
	}
	n.EditVersion = o.EditVersion
	e.After, e.DueCents = n, n.DueCents
	e.Note = editNote(e, s.money(n.Currency))
	if _, err := tx.ExecContext(ctx, `INSERT INTO order_notes (order_id, author, body, at) VALUES ($1, $2, $3, $4)`,
		o.ID, req.Actor, e.Note, s.clock.Now().Unix()); err != nil {
		return Edit{}, fmt.Errorf("edit order %d: note: %w", o.ID, err)
	}
	for _, f := range s.editedTx {
		if err := f(ctx, tx, e); err != nil {
			return Edit{}, fmt.Errorf("edit order %d: %w", o.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Edit{}, fmt.Errorf("edit order %d: commit: %w", o.ID, err)
	}
	return e, nil
}

func conflict() *EditError {
	return &EditError{Reason: EditConflict, Msg: "Someone changed this order since the page was shown: look at it again and redo your change."}
}

func notEditableMsg(status string) string {
	switch status {
	case OrderAwaitingPayment:
		return "The order is waiting for its card payment: it can be edited once it is paid (or cancelled)."
	case OrderCancelled:
		return "The order was cancelled: it can no longer be edited."
	}
	return "The order has shipped: it can no longer be edited (a return takes items back)."
}

// editedLines applies req's quantities and added line to o's lines, in
// item then variant order; a new line takes the variant's price now.
func (s *Service) editedLines(ctx context.Context, tx *sql.Tx, o Order, req EditRequest) ([]OrderLine, error) {
	byRef := make(map[LineRef]int, len(o.Lines))
	lines := slices.Clone(o.Lines)
	for i, l := range lines {
		byRef[LineRef{l.ItemID, l.VariantID}] = i
	}
	changed := false
	for ref, qty := range req.Qty {
		i, ok := byRef[ref]
		if !ok {
			return nil, &EditError{Reason: EditBadQty, Msg: "The order has no such line: look at the order again."}
		}
		if qty < 0 || qty > MaxEditQty {
			return nil, &EditError{Reason: EditBadQty, Msg: fmt.Sprintf("Give each line a quantity from 0 (to remove it) to %d.", MaxEditQty)}
		}
		changed = changed || lines[i].Qty != qty
		lines[i].Qty = qty
	}
	if sku := strings.TrimSpace(req.AddSKU); sku != "" || req.AddQty != 0 {
		if sku == "" {
			return nil, &EditError{Reason: EditUnknownSKU, Msg: "Give the SKU of the item to add."}
		}
		if req.AddQty < 1 || req.AddQty > MaxEditQty {
			return nil, &EditError{Reason: EditBadQty, Msg: fmt.Sprintf("Add a quantity from 1 to %d.", MaxEditQty)}
		}
		item, variant, ok, err := catalog.SKUTx(ctx, tx, sku)
		if err != nil {
			return nil, fmt.Errorf("edit order %d: %w", o.ID, err)
		}
		if !ok {
			return nil, &EditError{Reason: EditUnknownSKU, Msg: fmt.Sprintf("No item or variant has the SKU %q.", sku)}
		}
		if i, ok := byRef[LineRef{item, variant}]; ok {
			lines[i].Qty += req.AddQty
			if lines[i].Qty > MaxEditQty {
				return nil, &EditError{Reason: EditBadQty, Msg: fmt.Sprintf("A line holds at most %d.", MaxEditQty)}
			}
		} else {
			sl, err := catalog.SaleLineTx(ctx, tx, item, variant)
			if err != nil {
				return nil, fmt.Errorf("edit order %d: %w", o.ID, err)
			}
			if variant == 0 && sl.Variant == "" && hasOptions(ctx, tx, item) {
				return nil, &EditError{Reason: EditNeedsVariant, Msg: fmt.Sprintf("%s comes in options: give the SKU of the one to add.", sl.Name)}
			}
			lines = append(lines, OrderLine{ItemID: item, VariantID: variant, SKU: sl.SKU, Variant: sl.Variant, Name: sl.Name,
				PriceCents: sl.PriceCents, Qty: req.AddQty})
		}
		changed = true
	}
	if !changed {
		return nil, &EditError{Reason: EditNothing, Msg: "Nothing to change: set a quantity or add an item."}
	}
	lines = slices.DeleteFunc(lines, func(l OrderLine) bool { return l.Qty == 0 })
	switch {
	case len(lines) == 0:
		return nil, &EditError{Reason: EditEmpty, Msg: "An order keeps at least one line: cancel the order instead."}
	case len(lines) > cart.MaxLines:
		return nil, &EditError{Reason: EditTooManyLines, Msg: fmt.Sprintf("An order holds at most %d lines.", cart.MaxLines)}
	}
	slices.SortFunc(lines, func(a, b OrderLine) int {
		if a.ItemID != b.ItemID {
			return int(a.ItemID - b.ItemID)
		}
		return int(a.VariantID - b.VariantID)
	})
	return lines, nil
}

// hasOptions reports whether an item sells through its variants.
func hasOptions(ctx context.Context, tx *sql.Tx, itemID int64) bool {
	var names string
	_ = tx.QueryRowContext(ctx, `SELECT option_names FROM items WHERE id = $1`, itemID).Scan(&names)
	return names != ""
}

// moveStock takes the stock of the lines raised or added and puts back
// that of the lines lowered or removed, in item then variant order (the
// checkout's lock order): conditional updates, so an edit never sells
// more than the stock; an *EditError names every line short of it.
func moveStock(ctx context.Context, tx *sql.Tx, before, after []OrderLine) error {
	delta := map[LineRef]int64{}
	for _, l := range before {
		delta[LineRef{l.ItemID, l.VariantID}] -= l.Qty
	}
	for _, l := range after {
		delta[LineRef{l.ItemID, l.VariantID}] += l.Qty
	}
	refs := make([]LineRef, 0, len(delta))
	for r, d := range delta {
		if d != 0 {
			refs = append(refs, r)
		}
	}
	slices.SortFunc(refs, func(a, b LineRef) int {
		if a.ItemID != b.ItemID {
			return int(a.ItemID - b.ItemID)
		}
		return int(a.VariantID - b.VariantID)
	})
	var problems []LineProblem
	for _, r := range refs {
		d := delta[r]
		if d < 0 {
			if err := catalog.PutBackStock(ctx, tx, r.ItemID, r.VariantID, -d); err != nil {
				return fmt.Errorf("edit order: put back stock: %w", err)
			}
			continue
		}
		_, taken, err := catalog.TakeStock(ctx, tx, r.ItemID, r.VariantID, d)
		if err != nil {
			return fmt.Errorf("edit order: take stock: %w", err)
		}
		if !taken {
			p, err := lineProblemTx(ctx, tx, cart.Line{ItemID: r.ItemID, VariantID: r.VariantID, Qty: d})
			if err != nil {
				return err
			}
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		var parts []string
		for _, p := range problems {
			parts = append(parts, fmt.Sprintf("%s: %d more wanted, %d left", p.Name, p.Wanted, p.Available))
		}
		return &EditError{Reason: EditOversell, Problems: problems, Msg: "Not enough stock: " + strings.Join(parts, "; ") + "."}
	}
	return nil
}

// settle works out the money of edit e from order o to n: nothing for an
// order not charged yet (its total is what will be paid); for one
// charged, the difference with what was asked before: a lower total
// refunds it through the order's payment method, a higher one is due
// from the shopper. A total below what was refunded already is refused.
func (s *Service) settle(ctx context.Context, tx *sql.Tx, o Order, n *Order, e *Edit, actor string) error {
	// What was given back apart from earlier edits' differences (a
	// goodwill refund): the order may not cost less than that.
	var edits int64
	if err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(cents), 0) FROM order_refunds WHERE order_id = $1 AND reason = $2 AND payment_ref = ''`,
		o.ID, ReasonEdit).Scan(&edits); err != nil {
		return fmt.Errorf("edit order %d: %w", o.ID, err)
	}
	if given := o.RefundedCents - edits; n.TotalCents < given {
		return &EditError{Reason: EditBelowRefunded, Msg: fmt.Sprintf("The new total, %s, is below the %s refunded already: keep more of the order.",
			s.money(o.Currency)(n.TotalCents), s.money(o.Currency)(given))}
	}
	charged := Charged(o.Status, o.PaidCents, o.TotalCents)
	if charged == 0 {
		return nil
	}
	// What was received stays recorded as paid, whatever the total
	// becomes: a later cancel gives back what was received (Charged).
	n.PaidCents = charged
	due := o.DueCents + n.TotalCents - o.TotalCents
	if due >= 0 {
		if p, ok := s.PaymentByCode(o.Payment); ok {
			if _, asks := p.(BalanceAsker); asks {
				n.DueCents = due // the shopper's order page offers the payment; the order waits for it to ship
				return nil
			}
		}
		e.Collect = due // paid outside the shop: the staff collect it the same way
		return nil
	}
	n.DueCents = 0
	back := -due
	if o.RefundedCents+back > charged {
		return &EditError{Reason: EditBelowRefunded, Msg: "The difference is more than is left of the payment to give back: keep more of the order."}
	}
	if _, ok := s.PaymentByCode(o.Payment); !ok {
		return &EditError{Reason: EditNoRefund, Msg: "The order was paid through a payment method that is not offered now, so the difference cannot be given back."}
	}
	n.RefundedCents = o.RefundedCents + back
	e.Refund = Refund{OrderID: o.ID, Cents: back, Reason: ReasonEdit, Actor: AdminActor(actor)}
	return nil
}

// editNote records an edit in words: each line changed, the code that
// came off, the totals and the money.
func editNote(e Edit, money func(int64) string) string {
	before := map[LineRef]OrderLine{}
	for _, l := range e.Before.Lines {
		before[LineRef{l.ItemID, l.VariantID}] = l
	}
	var parts []string
	seen := map[LineRef]bool{}
	for _, l := range e.After.Lines {
		r := LineRef{l.ItemID, l.VariantID}
		seen[r] = true
		b, had := before[r]
		switch {
		case !had:
			parts = append(parts, fmt.Sprintf("added %d × %s (%s) at %s", l.Qty, lineTitle(l), l.SKU, money(l.PriceCents)))
		case b.Qty != l.Qty:
			parts = append(parts, fmt.Sprintf("%s (%s) %d → %d", lineTitle(l), l.SKU, b.Qty, l.Qty))
		}
	}
	for _, l := range e.Before.Lines {
		if !seen[LineRef{l.ItemID, l.VariantID}] {
			parts = append(parts, fmt.Sprintf("removed %d × %s (%s)", l.Qty, lineTitle(l), l.SKU))
		}
	}
	s := "Order edited: " + strings.Join(parts, "; ") + ". Total " + money(e.Before.TotalCents) + " → " + money(e.After.TotalCents) + "."
	if e.CodeDropped != "" {
		s += " Code " + e.CodeDropped + " came off: the order no longer meets its minimum."
	}
	if e.Refund.Cents > 0 {
		s += " " + money(e.Refund.Cents) + " goes back through the payment method."
	}
	if e.After.DueCents > 0 {
		s += " The shopper is asked to pay " + money(e.After.DueCents) + " (the order ships once paid)."
	}
	if e.Collect > 0 {
		s += " Collect the " + money(e.Collect) + " more from the shopper as the order was paid."
	}
	return s
}

func lineTitle(l OrderLine) string {
	if l.Variant == "" {
		return l.Name
	}
	return l.Name + " (" + l.Variant + ")"
}

// changedItems are the items whose quantity an edit changed.
func changedItems(before, after []OrderLine) []int64 {
	qty := map[LineRef]int64{}
	for _, l := range before {
		qty[LineRef{l.ItemID, l.VariantID}] -= l.Qty
	}
	for _, l := range after {
		qty[LineRef{l.ItemID, l.VariantID}] += l.Qty
	}
	var ids []int64
	for r, d := range qty {
		if d != 0 && !slices.Contains(ids, r.ItemID) {
			ids = append(ids, r.ItemID)
		}
	}
	slices.Sort(ids)
	return ids
}

// refundByID reads one refund of the ledger.
func (s *Service) refundByID(ctx context.Context, id int64) (Refund, error) {
	r := Refund{ID: id}
	var at, settled int64
	err := s.db.QueryRowContext(ctx, `SELECT order_id, cents, status, ref, at, settled_at FROM order_refunds WHERE id = $1`, id).
		Scan(&r.OrderID, &r.Cents, &r.Status, &r.Ref, &at, &settled)
	if errors.Is(err, sql.ErrNoRows) {
		return Refund{}, platform.ErrNotFound
	}
	r.At, r.SettledAt = platform.UnixTime(at), platform.UnixTime(settled)
	return r, err
}
