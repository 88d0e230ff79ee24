package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"storefront/store/platform"
	"storefront/store/pricing"
)

// Order statuses.
const (
	OrderPending   = "pending"   // placed, waiting for the fulfilment worker
	OrderProcessed = "processed" // handled by the fulfilment worker
	// OrderAwaitingPayment is an order paid before it is fulfilled (a
	// card): placed with its stock held, it becomes paid when the
	// provider confirms, or is cancelled when the payment hold runs out.
	OrderAwaitingPayment = "awaiting_payment"
)

// GuestUserID owns the orders of guests. Its users row exists only so
// that guest orders satisfy the orders table's foreign key: it has no
// password and a username key that registration cannot produce, so no one
// signs in as it, and Order never serves it (guests reach their orders
// through GuestOrder).
const GuestUserID = 0

// Order is a placed order with its price snapshots.
type Order struct {
	ID     int64
	UserID int64 // GuestUserID for a guest's order
	Status string
	// TotalCents is what the shopper pays: SubtotalCents (the lines) less
	// DiscountCents plus ShippingCents, plus TaxCents when TaxMode is
	// pricing.TaxAdded. Orders placed before delivery was charged have no
	// shipping, and their subtotal is their total; orders placed before
	// discounts and tax have neither (TaxMode "").
	TotalCents    int64
	SubtotalCents int64
	ShippingCents int64
	DiscountCents int64
	// GoodsDiscountCents is the part of DiscountCents off the lines (none
	// for a free-delivery code) and ShippingTaxCents the part of TaxCents
	// on the delivery: what a return leaves out (GoodsCharge).
	GoodsDiscountCents int64
	DiscountCode       string // the code as the admin wrote it, "" for none
	TaxCents           int64
	ShippingTaxCents   int64
	TaxMode            string // pricing.TaxIncluded, pricing.TaxAdded, or "" before tax was recorded
	// Currency is the ISO 4217 code of every amount of the order: the
	// shop's currency when it was placed.
	Currency string
	// InvoiceNumber is the order's invoice number, taken at checkout
	// without gaps (invoice.go); TaxRateBP the tax rate it was priced at
	// (hundredths of a percent; 0 for orders placed before it was kept).
	InvoiceNumber int64
	TaxRateBP     int64
	ItemCount     int64 // total quantity
	CreatedAt     time.Time
	ProcessedAt   time.Time // zero while pending
	Email         string    // a guest's email; "" for signed-in shoppers
	Address       Address
	Shipping      string // delivery method, "" for orders placed before methods existed
	Payment       string // payment method code, "" likewise
	Tracking      string // the carrier's tracking number, once shipped
	// PaidCents is what a payment provider confirmed (0 for methods paid
	// outside the shop), PaymentRef the provider's id of the payment and
	// RefundedCents what went back so far.
	PaidCents     int64
	PaymentRef    string
	RefundedCents int64
	// PaymentSession is the provider's payment page the order was sent
	// to while it awaits payment ("" for none).
	PaymentSession string
	// EditVersion counts the edits made to the order (EditOrder);
	// DueCents is what an edit asked the shopper to pay on top of what
	// they paid (0: nothing), DueSession the provider's page for it.
	EditVersion int64
	DueCents    int64
	DueSession  string
	Lines       []OrderLine
	// Events is the timeline after the order was placed, oldest first.
	Events []OrderEvent
}

// OrderLine is one item of an order at the price it was sold for.
type OrderLine struct {
	ItemID int64
	// VariantID is the variant sold, 0 for an item without options; SKU
	// and Variant (its options as a shopper reads them, "" for none) are
	// as they were at the sale.
	VariantID  int64
	SKU        string
	Variant    string
	Name       string
	PriceCents int64
	Qty        int64
}

// GoodsCharge is what the order charged for its goods, apart from the
// delivery: what returns give back (pricing.GoodsCharge.Refund).
func (o Order) GoodsCharge() pricing.GoodsCharge {
	return pricing.ChargeForGoods(o.SubtotalCents, o.GoodsDiscountCents, o.TaxCents, o.ShippingTaxCents, o.TaxMode)
}

// TotalCents is the line's price times its quantity.
func (l OrderLine) TotalCents() int64 { return l.PriceCents * l.Qty }

// Orders returns one page of a shopper's orders, newest first, without
// their lines, and how many orders the shopper has in all.
func (s *Service) Orders(ctx context.Context, userID int64, limit, offset int) ([]Order, int, error) {
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM orders WHERE user_id = $1`, userID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("orders: %w", err)
	}
	if offset >= total {
		return nil, total, nil
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT o.id, o.status, o.total_cents, o.created_at, o.processed_at, COALESCE(SUM(l.qty), 0)
		FROM orders o LEFT JOIN order_lines l ON l.order_id = o.id
		WHERE o.user_id = $1
		GROUP BY o.id, o.status, o.total_cents, o.created_at, o.processed_at
		ORDER BY o.id DESC LIMIT $2 OFFSET $3`, userID, limit, offset)
	if err != nil {
		return nil, 0, fmt.Errorf("orders: %w", err)
	}
	defer rows.Close()
	var out []Order
	for rows.Next() {
		o := Order{UserID: userID}
		var created int64
		var processed sql.NullInt64
		if err := rows.Scan(&o.ID, &o.Status, &o.TotalCents, &created, &processed, &o.ItemCount); err != nil {
			return nil, 0, fmt.Errorf("orders: %w", err)
		}
		o.CreatedAt, o.ProcessedAt = platform.UnixTime(created), platform.UnixTime(processed.Int64)
		out = append(out, o)
	}
	return out, total, rows.Err()
}

// Order reads one of a shopper's orders with its lines and timeline.
// Another shopper's order is platform.ErrNotFound, exactly like one that does not
// exist.
func (s *Service) Order(ctx context.Context, userID, id int64) (Order, error) {
	if userID <= 0 {
		return Order{}, platform.ErrNotFound
	}
	return s.readOrder(ctx, userID, id)
}

// GuestOrder reads a guest's order with its lines (the caller checked the
// signed link); a shopper's order is platform.ErrNotFound.
func (s *Service) GuestOrder(ctx context.Context, id int64) (Order, error) {
	o, err := s.readOrder(ctx, 0, id)
	if err == nil && o.UserID != GuestUserID {
		return Order{}, platform.ErrNotFound
	}
	return o, err
}

// OrderAny reads any order, a shopper's or a guest's (the admin's view).
func (s *Service) OrderAny(ctx context.Context, id int64) (Order, error) {
	return s.readOrder(ctx, 0, id)
}

// readOrder reads an order, of userID only unless userID is 0, with its
// lines, timeline and tracking number.
func (s *Service) readOrder(ctx context.Context, userID, id int64) (Order, error) {
	o, err := readOrderRow(ctx, s.db, userID, id)
	if err != nil {
		return Order{}, err
	}
	if o.Events, err = s.OrderEvents(ctx, id); err != nil {
		return Order{}, err
	}
	if o.Tracking, err = s.tracking(ctx, id); err != nil {
		return Order{}, err
	}
	return o, nil
}

// OrderTx reads order id with its lines inside tx (a listener writing in
// a move's transaction: the confirmation email of a card order, sent
// when it is paid).
func OrderTx(ctx context.Context, tx *sql.Tx, id int64) (Order, error) {
	return readOrderRow(ctx, tx, 0, id)
}

// querier is the database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// readOrderRow reads an order and its lines through q.
func readOrderRow(ctx context.Context, q querier, userID, id int64) (Order, error) {
	o := Order{ID: id}
	var created int64
	var processed sql.NullInt64
	a := &o.Address
	query, args := `SELECT user_id, status, total_cents, created_at, processed_at, email, `+shipColumns+`, shipping_method, shipping_cents, payment_method,
		subtotal_cents, discount_cents, discount_code, tax_cents, tax_mode, paid_cents, payment_ref, refunded_cents,
		goods_discount_cents, shipping_tax_cents, payment_session, currency, COALESCE(invoice_number, 0), tax_rate_bp, edit_version, due_cents, due_session FROM orders WHERE id = $1`, []any{id}
	if userID > 0 {
		query, args = query+` AND user_id = $2`, append(args, userID)
	}
	dest := append([]any{&o.UserID, &o.Status, &o.TotalCents, &created, &processed, &o.Email}, a.shipTo()...)
	dest = append(dest, &o.Shipping, &o.ShippingCents, &o.Payment,
		&o.SubtotalCents, &o.DiscountCents, &o.DiscountCode, &o.TaxCents, &o.TaxMode, &o.PaidCents, &o.PaymentRef, &o.RefundedCents,
		&o.GoodsDiscountCents, &o.ShippingTaxCents, &o.PaymentSession, &o.Currency, &o.InvoiceNumber, &o.TaxRateBP, &o.EditVersion, &o.DueCents, &o.DueSession)
	err := q.QueryRowContext(ctx, query, args...).Scan(dest...)
	if errors.Is(err, sql.ErrNoRows) {
		return Order{}, platform.ErrNotFound
	}
	if err != nil {
		return Order{}, fmt.Errorf("order %d: %w", id, err)
	}
	o.CreatedAt, o.ProcessedAt = platform.UnixTime(created), platform.UnixTime(processed.Int64)
	rows, err := q.QueryContext(ctx, `SELECT item_id, variant_id, sku, variant, name, price_cents, qty FROM order_lines WHERE order_id = $1 ORDER BY item_id, variant_id`, id)
	if err != nil {
		return Order{}, fmt.Errorf("order %d: %w", id, err)
	}
	defer rows.Close()
	for rows.Next() {
		var l OrderLine
		if err := rows.Scan(&l.ItemID, &l.VariantID, &l.SKU, &l.Variant, &l.Name, &l.PriceCents, &l.Qty); err != nil {
			return Order{}, fmt.Errorf("order %d: %w", id, err)
		}
		o.Lines = append(o.Lines, l)
		o.ItemCount += l.Qty
	}
	if err := rows.Err(); err != nil {
		return Order{}, fmt.Errorf("order %d: %w", id, err)
	}
	return o, nil
}

// LastAddress is the delivery address of the shopper's latest order that
// has one, for the checkout form to offer; ok is false when there is none.
func (s *Service) LastAddress(ctx context.Context, userID int64) (Address, bool, error) {
	if userID <= 0 {
		return Address{}, false, nil
	}
	var a Address
	err := s.db.QueryRowContext(ctx, `SELECT `+shipColumns+`
		FROM orders WHERE user_id = $1 AND ship_line1 <> '' ORDER BY id DESC LIMIT 1`, userID).Scan(a.shipTo()...)
	if errors.Is(err, sql.ErrNoRows) {
		return Address{}, false, nil
	}
	if err != nil {
		return Address{}, false, fmt.Errorf("last address: %w", err)
	}
	return a, true, nil
}

// CurrencyTx is the currency an order was priced in, read in tx (the
// emails of its later steps write amounts in it).
func CurrencyTx(ctx context.Context, tx *sql.Tx, orderID int64) (string, error) {
	var cur string
	if err := tx.QueryRowContext(ctx, `SELECT currency FROM orders WHERE id = $1`, orderID).Scan(&cur); err != nil {
		return "", fmt.Errorf("order %d currency: %w", orderID, err)
	}
	return cur, nil
}
