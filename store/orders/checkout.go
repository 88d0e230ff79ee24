package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/pricing"
)

// Checkout errors besides *CheckoutError.
var (
	// ErrEmptyCart means there is nothing to order.
	ErrEmptyCart = errors.New("cart is empty")
	// ErrCheckoutBusy means the same session is already checking out (a
	// double click): the second attempt must not place a second order.
	ErrCheckoutBusy = errors.New("checkout already in progress")
)

// Reasons why a cart line cannot be ordered.
const (
	ProblemGone    = "gone"     // the item is no longer in the catalog, or archived
	ProblemSoldOut = "sold_out" // none left
	ProblemShort   = "short"    // fewer left than the cart asks for
)

// LineProblem says why one cart line cannot be filled.
type LineProblem struct {
	ItemID    int64
	VariantID int64
	Name      string
	Reason    string // ProblemGone, ProblemSoldOut or ProblemShort
	Wanted    int64
	Available int64
}

// CheckoutError means the order was not placed and nothing changed: some
// lines cannot be filled, or the total is not the one the shopper saw.
type CheckoutError struct {
	Problems []LineProblem
	// PriceChanged is set when the caller's expected total differs from
	// the total at current prices, which is Total.
	PriceChanged bool
	Total        int64
}

func (e *CheckoutError) Error() string {
	if e.PriceChanged {
		return "checkout: prices changed"
	}
	return fmt.Sprintf("checkout: %d lines cannot be filled", len(e.Problems))
}

// checkoutLockTTL bounds how long a crashed checkout blocks the session's
// next one.
const checkoutLockTTL = 30 * time.Second

// CheckoutRequest is an order as the shopper confirmed it on the review.
// Validating the form (address, email, methods) is the caller's job.
type CheckoutRequest struct {
	Cart cart.Owner
	// Email is the guest's address for the order; "" for signed-in shoppers.
	Email    string
	Address  Address
	Shipping string // ShippingStandard or ShippingExpress
	Payment  string // a PaymentMethod code
	// ExpectTotal is the total, items, discount, delivery and any added
	// tax, that the shopper saw
	// (cents); another total at current prices refuses the order. A
	// negative value skips the comparison.
	ExpectTotal int64
}

// Checkout places an order for the cart: in one database transaction it
// takes the stock with a conditional update per line (so concurrent
// checkouts never sell more than the stock), snapshots prices, adds the
// delivery price and writes the order and its lines. If any line cannot
// be filled, or the total differs from ExpectTotal, it rolls back and
// returns a *CheckoutError. After the commit the ordered lines leave the
// cart, the order id goes onto the fulfilment queue, the "also bought"
// statistics count the order and the items' cached pages are purged.
func (s *Service) Checkout(ctx context.Context, req CheckoutRequest) (Order, error) {
	result := "error"
	defer func() { s.checkouts.WithLabelValues(result).Inc() }()

	lockKey := keys.CheckoutLock(req.Cart.UserID, req.Cart.Token)
	lock := platform.RandomHex(8)
	ok, err := s.rdb.SetNX(ctx, lockKey, lock, checkoutLockTTL).Result()
	if err != nil {
		return Order{}, fmt.Errorf("checkout: %w", err)
	}
	if !ok {
		result = "busy"
		return Order{}, ErrCheckoutBusy
	}
	defer func() {
		_ = platform.ReleaseLock(context.WithoutCancel(ctx), s.rdb, lockKey, lock)
	}()

	pay, ok := s.PaymentByCode(req.Payment)
	if !ok {
		return Order{}, fmt.Errorf("checkout: %q: %w", req.Payment, ErrUnknownPayment)
	}
	status := OrderPending
	if pay.PaysFirst() {
		status = OrderAwaitingPayment // its stock held until the payment is confirmed or the hold runs out
	}

	c, err := s.carts.Cart(ctx, req.Cart)
	if err != nil {
		return Order{}, err
	}
	if len(c.Lines) == 0 {
		result = "empty"
		return Order{}, ErrEmptyCart
	}
	if err := s.precheck(ctx, c); err != nil {
		result = checkoutResult(err)
		return Order{}, err
	}
	o, soldOut, err := s.placeOrder(ctx, req, status, c.Lines, c.Code)
	if err != nil {
		result = checkoutResult(err)
		return Order{}, err
	}
	result = "ok"
	// The order is committed: what follows must happen even if the client
	// has gone, and its failures must not turn the order into an error.
	used := c.Code
	if o.DiscountCode == "" {
		used = "" // not used (a free-delivery code on a delivery free anyway): it stays in the cart
	}
	s.afterCheckout(context.WithoutCancel(ctx), req.Cart, o, soldOut, used)
	return o, nil
}

func checkoutResult(err error) string {
	var ce *CheckoutError
	var code *pricing.CodeError
	switch {
	case errors.As(err, &code):
		return "code_refused"
	case errors.As(err, &ce) && ce.PriceChanged:
		return "price_changed"
	case errors.As(err, &ce):
		return "out_of_stock"
	}
	return "error"
}

// precheck reads the lines through CatalogRows (the path the row cache
// serves) and refuses lines that cannot be filled without taking the
// database's write lock. It may be stale; the transaction decides.
func (s *Service) precheck(ctx context.Context, c cart.Cart) error {
	rows, err := s.catalog.CatalogRows(ctx, c.ItemIDs())
	if err != nil {
		return err
	}
	var problems []LineProblem
	for _, l := range c.Lines {
		it, ok := rows[l.ItemID]
		if l.VariantID != 0 && ok && !it.Archived() {
			continue // the row holds the item's summed stock: the transaction checks the variant's
		}
		if ok && l.VariantID == 0 && it.HasOptions() {
			ok = false // a line from before the item had options: choose one
		}
		if p, bad := problemFor(l, it, ok); bad {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		return &CheckoutError{Problems: problems}
	}
	return nil
}

// problemFor says whether line l can be filled from row it (ok = exists).
func problemFor(l cart.Line, it catalog.Item, ok bool) (LineProblem, bool) {
	p := LineProblem{ItemID: l.ItemID, VariantID: l.VariantID, Name: it.Name, Wanted: l.Qty, Available: it.Stock}
	switch {
	case !ok || it.Archived():
		p.Reason, p.Available = ProblemGone, 0
	case it.Stock <= 0:
		p.Reason, p.Available = ProblemSoldOut, 0
	case it.Stock < l.Qty:
		p.Reason = ProblemShort
	default:
		return p, false
	}
	return p, true
}

// placeOrder is the checkout transaction. Lines are sorted by item id,
// then variant id (the cart's order), and a variant's row is locked after
// its item's, so two transactions lock rows in the same order and
// PostgreSQL cannot deadlock; SQLite's write transactions take the lock at
// BEGIN (_txlock=immediate) and simply queue. The order is priced in the
// transaction (delivery by the zone of the address's country, tax by its
// rate) and a discount code takes its use last, after the stock rows (the
// cancel's lock order too); a code that cannot be used refuses the order
// with its *pricing.CodeError. The order starts in status (pending, or
// awaiting payment for a method paid first). soldOut says an item's stock
// ran out.
func (s *Service) placeOrder(ctx context.Context, req CheckoutRequest, status string, lines []cart.Line, code string) (o Order, soldOut bool, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Order{}, false, fmt.Errorf("checkout: %w", err)
	}
	defer tx.Rollback()
	memberEmail, err := lockBuyer(ctx, tx, req.Cart.UserID)
	if err != nil {
		return Order{}, false, err
	}

	var problems []LineProblem
	for _, l := range lines {
		left, taken, err := catalog.TakeStock(ctx, tx, l.ItemID, l.VariantID, l.Qty)
		if err != nil {
			return Order{}, false, fmt.Errorf("checkout: take stock: %w", err)
		}
		if taken {
			soldOut = soldOut || left == 0
			continue
		}
		p, err := lineProblemTx(ctx, tx, l)
		if err != nil {
			return Order{}, false, err
		}
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		return Order{}, false, &CheckoutError{Problems: problems}
	}

	o = Order{UserID: req.Cart.UserID, Status: status, CreatedAt: time.Unix(s.clock.Now().Unix(), 0),
		Email: req.Email, Address: req.Address, Shipping: req.Shipping, Payment: req.Payment, Currency: s.currencyNow()}
	if req.Cart.Guest() {
		o.UserID = GuestUserID
	}
	amounts := make([]int64, len(lines))
	for i, l := range lines {
		// Read after the updates: the rows are ours now, so the snapshot
		// is the committed price at the moment of sale.
		sl, err := catalog.SaleLineTx(ctx, tx, l.ItemID, l.VariantID)
		if err != nil {
			return Order{}, false, fmt.Errorf("checkout: %w", err)
		}
		o.Lines = append(o.Lines, OrderLine{ItemID: l.ItemID, VariantID: l.VariantID, SKU: sl.SKU, Variant: sl.Variant,
			Name: sl.Name, PriceCents: sl.PriceCents, Qty: l.Qty})
		amounts[i] = sl.PriceCents * l.Qty
		o.ItemCount += l.Qty
	}
	q, refused, err := s.prices.Quote(ctx, tx, pricing.Request{Lines: amounts, Country: req.Address.Country, Method: req.Shipping, Code: code})
	if err != nil {
		return Order{}, false, fmt.Errorf("checkout: %w", err)
	}
	if refused != nil {
		return Order{}, false, refused
	}
	o.SubtotalCents, o.DiscountCents, o.DiscountCode = q.Subtotal, q.Discount, q.Code.Code
	o.ShippingCents, o.TaxCents, o.TaxMode, o.TotalCents = q.Shipping, q.Tax, q.TaxMode, q.Total
	o.GoodsDiscountCents, o.ShippingTaxCents = q.GoodsDiscount, q.ShippingTax
	if req.ExpectTotal >= 0 && req.ExpectTotal != o.TotalCents {
		return Order{}, false, &CheckoutError{PriceChanged: true, Total: o.TotalCents}
	}

	o.TaxRateBP = q.RateBP
	if o.InvoiceNumber, err = takeInvoiceNumber(ctx, tx); err != nil {
		return Order{}, false, err
	}
	a := o.Address
	err = tx.QueryRowContext(ctx, `INSERT INTO orders (user_id, status, total_cents, created_at, email, `+shipColumns+`,
		shipping_method, shipping_cents, payment_method,
		subtotal_cents, discount_cents, discount_code, tax_cents, tax_mode, goods_discount_cents, shipping_tax_cents, currency,
		invoice_number, tax_rate_bp)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26) RETURNING id`,
		o.UserID, o.Status, o.TotalCents, o.CreatedAt.Unix(), o.Email, a.Name, a.Line1, a.Line2,
		a.City, a.Region, a.Postcode, a.Country, a.Phone, o.Shipping, o.ShippingCents, o.Payment,
		o.SubtotalCents, o.DiscountCents, o.DiscountCode, o.TaxCents, o.TaxMode, o.GoodsDiscountCents, o.ShippingTaxCents, o.Currency,
		o.InvoiceNumber, o.TaxRateBP).Scan(&o.ID)
	if err != nil {
		return Order{}, false, fmt.Errorf("checkout: insert order: %w", err)
	}
	if err := insertOrderLines(ctx, tx, o); err != nil {
		return Order{}, false, err
	}
	if q.Code.ID != 0 {
		if err := pricing.TakeUse(ctx, tx, q.Code, customer(req, memberEmail), o.ID, s.prices.Today()); err != nil {
			return Order{}, false, err
		}
	}
	if err := s.placedInTx(ctx, tx, o); err != nil {
		return Order{}, false, fmt.Errorf("checkout: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Order{}, false, fmt.Errorf("checkout: commit: %w", err)
	}
	return o, soldOut, nil
}

// customer names the buyer for a code's per-customer cap: the account
// and its address, or a guest's email.
func customer(req CheckoutRequest, memberEmail string) pricing.Customer {
	if req.Cart.Guest() {
		return pricing.Guest(req.Email)
	}
	return pricing.Member(req.Cart.UserID, memberEmail)
}

// lineProblemTx says why the conditional update of line l touched no row.
func lineProblemTx(ctx context.Context, tx *sql.Tx, l cart.Line) (LineProblem, error) {
	it, ok, err := catalog.StockTx(ctx, tx, l.ItemID, l.VariantID)
	if err != nil {
		return LineProblem{}, fmt.Errorf("checkout: %w", err)
	}
	p, bad := problemFor(l, it, ok)
	if ok && !bad { // restocked between the update and this read: still refuse, it is rare
		p.Reason = ProblemShort
	}
	return p, nil
}

func insertOrderLines(ctx context.Context, tx *sql.Tx, o Order) error {
	args := make([]any, 0, 8*len(o.Lines))
	for _, l := range o.Lines {
		args = append(args, o.ID, l.ItemID, l.VariantID, l.Name, l.PriceCents, l.Qty, l.SKU, l.Variant)
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO order_lines (order_id, item_id, variant_id, name, price_cents, qty, sku, variant) VALUES `+
		platform.ValueRows(1, len(o.Lines), 8), args...)
	if err != nil {
		return fmt.Errorf("checkout: insert lines: %w", err)
	}
	return nil
}

// afterCheckout empties the cart, enqueues the order and has the OnPlaced
// listeners count it (the "also bought" statistics) in one round trip, then announces the sold
// items' change (their pages are purged). Failures are logged, not returned: the order exists, and
// an order that never reached the queue is found by the fulfilment sweep.
func (s *Service) afterCheckout(ctx context.Context, owner cart.Owner, o Order, soldOut bool, codeTyped string) {
	ordered := make([]cart.Line, len(o.Lines))
	var ids []int64
	for i, l := range o.Lines {
		ordered[i] = cart.Line{ItemID: l.ItemID, VariantID: l.VariantID, Qty: l.Qty}
		if len(ids) == 0 || ids[len(ids)-1] != l.ItemID {
			ids = append(ids, l.ItemID)
		}
	}
	pipe := s.rdb.Pipeline()
	cart.AddRemoveOrdered(ctx, pipe, owner, ordered)
	cart.AddClearCode(ctx, pipe, owner, codeTyped)
	if o.Status != OrderAwaitingPayment { // an order awaiting payment is fulfilled once paid, by hand
		s.addEnqueueOrder(ctx, pipe, o.ID)
	}
	for _, f := range s.placed {
		f(ctx, pipe, ordered)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		s.log.Error("after checkout: cart, queue or statistics", "order", o.ID, "err", err)
	}
	// Their stock changed; a search sees it when some ran out.
	if err := s.catalog.Changed(ctx, catalog.Change{IDs: ids, Search: soldOut}); err != nil {
		s.log.Error("after checkout: item change", "order", o.ID, "err", err)
	}
}
