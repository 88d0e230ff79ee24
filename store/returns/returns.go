package returns

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"storefront/store/catalog"
	"storefront/store/orders"
	"storefront/store/platform"
)

// Return statuses.
const (
	Requested = "requested" // the shopper asked
	Approved  = "approved"  // the shop agreed; the parcel is on its way back
	Rejected  = "rejected"  // the shop refused; its quantities may be asked again
	Received  = "received"  // the parcel arrived
	Refunding = "refunding" // the payment method is giving the money back
	Refunded  = "refunded"  // the money went back
)

// Admin actions on a return.
const (
	ActApprove = "approve"
	ActReject  = "reject"
	ActReceive = "receive"
	ActRefund  = "refund"
)

// DefaultWindow is how long after delivery an order may be returned.
const DefaultWindow = 30 * 24 * time.Hour

// MaxReasonLen is the longest reason, in characters.
const MaxReasonLen = 500

// Refusals of a return request; each changes nothing. Their text is for
// the shopper.
var (
	ErrNotDelivered = fmt.Errorf("%w: only a delivered order can be returned", platform.ErrInvalid)
	ErrWindowOver   = fmt.Errorf("%w: the time to return this order is over", platform.ErrInvalid)
	ErrNoLines      = fmt.Errorf("%w: choose at least one item to return", platform.ErrInvalid)
	ErrQty          = fmt.Errorf("%w: a quantity to return is a whole number of at least 1", platform.ErrInvalid)
	ErrTooMany      = fmt.Errorf("%w: that is more than you bought, less what you already asked to return", platform.ErrInvalid)
	ErrUnknownLine  = fmt.Errorf("%w: that item is not in this order", platform.ErrInvalid)
	ErrReason       = fmt.Errorf("%w: say why in 1 to %d characters of plain text", platform.ErrInvalid, MaxReasonLen)
)

// MoveError means a return cannot take the action from its status (or
// another step got there first). Nothing changed.
type MoveError struct{ From, Action string }

func (e *MoveError) Error() string {
	return fmt.Sprintf("a %s return cannot be given the action %q", e.From, e.Action)
}

// Return is one return request with its lines.
type Return struct {
	ID      int64
	OrderID int64
	UserID  int64 // the order's shopper
	Status  string
	Reason  string
	Lines   []Line
	// RefundCents is what its refund gives back, from the moment it is
	// held for it (refunding); Note says how an admin settled it by hand.
	RefundCents int64
	Note        string
	Restocked   bool
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Line is a returned order line: its item and variant, how many, at the
// price paid.
type Line struct {
	ItemID     int64
	VariantID  int64 // 0 for an item without options
	Name       string
	Qty        int64
	PriceCents int64
	// SKU and Variant (its options, "Size: M") are the order line's, as
	// sold: what the warehouse checks the parcel against.
	SKU     string
	Variant string
}

// LineKey names an order line: its item and variant (0 for an item
// without options). As text (forms) it is "<item>", or "<item>-<variant>".
type LineKey struct{ ItemID, VariantID int64 }

// Key is the order line the returned line is of.
func (l Line) Key() LineKey { return LineKey{l.ItemID, l.VariantID} }

// String is the key as forms carry it.
func (k LineKey) String() string {
	if k.VariantID == 0 {
		return strconv.FormatInt(k.ItemID, 10)
	}
	return strconv.FormatInt(k.ItemID, 10) + "-" + strconv.FormatInt(k.VariantID, 10)
}

// ParseLineKey reads a key as String writes it.
func ParseLineKey(s string) (LineKey, bool) {
	item, variant, hasVariant := strings.Cut(s, "-")
	id, err := strconv.ParseInt(item, 10, 64)
	if err != nil || id <= 0 {
		return LineKey{}, false
	}
	k := LineKey{ItemID: id}
	if hasVariant {
		v, err := strconv.ParseInt(variant, 10, 64)
		if err != nil || v <= 0 {
			return LineKey{}, false
		}
		k.VariantID = v
	}
	return k, true
}

// GoodsCents is the returned lines' price paid times their quantity.
func (r Return) GoodsCents() int64 {
	var n int64
	for _, l := range r.Lines {
		n += l.PriceCents * l.Qty
	}
	return n
}

// Step is a return's change, as the OnStepTx listeners hear of it inside
// the step's transaction.
type Step struct {
	Return Return
	Email  string // a guest order's email; "" for a member's
	// Payment is the order's payment method's code: a refund goes back
	// that way.
	Payment string
}

// Options are the returns' knobs.
type Options struct {
	// Window is how long after delivery an order may be returned
	// (RETURN_DAYS); zero takes DefaultWindow.
	Window time.Duration
}

// Service is the returns.
type Service struct {
	db       *sql.DB
	kind     string
	log      *slog.Logger
	clock    *platform.Clock
	opt      Options
	catalog  *catalog.Service
	refunder Refunder
	stepTx   []func(ctx context.Context, tx *sql.Tx, st Step) error
}

// New returns the returns: refunds go through refunder (the orders), the
// stock back through the catalog.
func New(b platform.Base, opt Options, cat *catalog.Service, refunder Refunder) *Service {
	if opt.Window <= 0 {
		opt.Window = DefaultWindow
	}
	return &Service{db: b.DB, kind: b.DBKind, log: b.Log, clock: b.Clock, opt: opt, catalog: cat, refunder: refunder}
}

// Window is how long after delivery an order may be returned.
func (s *Service) Window() time.Duration { return s.opt.Window }

// OnStepTx registers a listener that writes inside each step's
// transaction: the request, approve, reject, receive and refund (the
// wiring queues the shopper's email there). An error rolls the step back.
func (s *Service) OnStepTx(f func(ctx context.Context, tx *sql.Tx, st Step) error) {
	s.stepTx = append(s.stepTx, f)
}

func (s *Service) stepInTx(ctx context.Context, tx *sql.Tx, st Step) error {
	for _, f := range s.stepTx {
		if err := f(ctx, tx, st); err != nil {
			return err
		}
	}
	return nil
}

// CheckReason reports whether reason may be a return's reason: 1 to
// MaxReasonLen characters of UTF-8 text once trimmed, without control
// characters other than new lines and tabs.
func CheckReason(reason string) bool {
	reason = strings.TrimSpace(reason)
	n := utf8.RuneCountInString(reason)
	return n >= 1 && n <= MaxReasonLen && utf8.ValidString(reason) &&
		!strings.ContainsFunc(reason, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f })
}

// ForOrder lists an order's returns, oldest first, with their lines.
func (s *Service) ForOrder(ctx context.Context, orderID int64) ([]Return, error) {
	return s.list(ctx, `r.order_id = $1`, []any{orderID}, 0)
}

// Latest lists the newest returns of every order, with their lines (the
// admin's list), at most limit.
func (s *Service) Latest(ctx context.Context, limit int) ([]Return, error) {
	return s.list(ctx, `1 = 1`, nil, limit)
}

// Get reads one return.
func (s *Service) Get(ctx context.Context, id int64) (Return, error) {
	rs, err := s.list(ctx, `r.id = $1`, []any{id}, 0)
	if err != nil {
		return Return{}, err
	}
	if len(rs) == 0 {
		return Return{}, platform.ErrNotFound
	}
	return rs[0], nil
}

func (s *Service) list(ctx context.Context, where string, args []any, limit int) ([]Return, error) {
	q := `SELECT r.id, r.order_id, o.user_id, r.status, r.reason, r.refund_cents, r.note, r.restocked, r.created_at, r.updated_at
		FROM returns r JOIN orders o ON o.id = r.order_id WHERE ` + where
	if limit > 0 {
		q += fmt.Sprintf(` ORDER BY r.id DESC LIMIT %d`, limit)
	} else {
		q += ` ORDER BY r.id`
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("returns: %w", err)
	}
	var out []Return
	byID := map[int64]int{}
	for rows.Next() {
		var r Return
		var restocked, created, updated int64
		if err := rows.Scan(&r.ID, &r.OrderID, &r.UserID, &r.Status, &r.Reason, &r.RefundCents, &r.Note, &restocked, &created, &updated); err != nil {
			rows.Close()
			return nil, fmt.Errorf("returns: %w", err)
		}
		r.Restocked, r.CreatedAt, r.UpdatedAt = restocked != 0, platform.UnixTime(created), platform.UnixTime(updated)
		byID[r.ID] = len(out)
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("returns: %w", err)
	}
	if len(out) == 0 {
		return out, nil
	}
	// The lines of the returns read: those between the lowest and the
	// highest id (a few of other orders' returns may be among them, and
	// are skipped).
	lo, hi := out[0].ID, out[0].ID
	for _, r := range out {
		lo, hi = min(lo, r.ID), max(hi, r.ID)
	}
	lrows, err := s.db.QueryContext(ctx, `SELECT rl.return_id, rl.item_id, rl.variant_id, COALESCE(ol.name, ''), rl.qty, rl.price_cents,
		COALESCE(ol.sku, ''), COALESCE(ol.variant, '')
		FROM return_lines rl JOIN returns r ON r.id = rl.return_id
		LEFT JOIN order_lines ol ON ol.order_id = r.order_id AND ol.item_id = rl.item_id AND ol.variant_id = rl.variant_id
		WHERE rl.return_id BETWEEN $1 AND $2 ORDER BY rl.return_id, rl.item_id, rl.variant_id`, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("return lines: %w", err)
	}
	defer lrows.Close()
	for lrows.Next() {
		var rid int64
		var l Line
		if err := lrows.Scan(&rid, &l.ItemID, &l.VariantID, &l.Name, &l.Qty, &l.PriceCents, &l.SKU, &l.Variant); err != nil {
			return nil, fmt.Errorf("return lines: %w", err)
		}
		if i, ok := byID[rid]; ok {
			out[i].Lines = append(out[i].Lines, l)
		}
	}
	return out, lrows.Err()
}

// errNoRows maps a missing row to platform.ErrNotFound.
func errNoRows(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return platform.ErrNotFound
	}
	return err
}

// Deadline is the last moment order o may be returned (its latest
// delivered event plus the window), and whether o is delivered and that
// moment is still ahead.
func (s *Service) Deadline(o orders.Order) (time.Time, bool) {
	var at time.Time
	for _, e := range o.Events {
		if e.Status == orders.OrderDelivered && e.At.After(at) {
			at = e.At
		}
	}
	if at.IsZero() {
		return time.Time{}, false
	}
	until := at.Add(s.opt.Window)
	return until, o.Status == orders.OrderDelivered && !s.clock.Now().After(until)
}
