package pricing

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"storefront/store/audit"
	"storefront/store/platform"
)

// Kinds of discount code.
const (
	KindPercent      = "percent"       // Value is hundredths of a percent off the lines
	KindAmount       = "amount"        // Value is cents off the lines
	KindFreeShipping = "free_shipping" // the delivery is free; Value is 0
)

// MaxCodeLen is the longest code.
const MaxCodeLen = 32

// Code is a discount code with its rules and how often it was used.
type Code struct {
	ID   int64
	Code string // as the admin wrote it
	Kind string
	// Value is basis points for KindPercent, cents for KindAmount.
	Value       int64
	MinSubtotal int64
	// Starts and Ends are UTC days "YYYY-MM-DD", both included; "" is open.
	Starts, Ends   string
	MaxUses        int64 // 0 = no limit
	MaxPerCustomer int64 // 0 = no limit
	Used           int64 // uses by orders not cancelled
	// Retired: the admin retired the code; checkouts refuse it.
	Retired bool
}

// Reasons a code is refused.
const (
	ReasonMalformed   = "malformed"    // spaces, other characters, too long or empty
	ReasonUnknown     = "unknown"      // no such code
	ReasonNotStarted  = "not_started"  // before its first day
	ReasonExpired     = "expired"      // after its last day
	ReasonUsedUp      = "used_up"      // max_uses reached
	ReasonPerCustomer = "per_customer" // this customer reached max_per_customer
	ReasonMinimum     = "minimum"      // the subtotal is below min_subtotal
	ReasonRetired     = "retired"      // the admin retired the code
)

// CodeError says why a code cannot be used. Nothing changed.
type CodeError struct {
	Code   string // as the shopper typed it
	Reason string
	Rules  Code // the code's rules, for the message (zero when unknown)
}

func (e *CodeError) Error() string { return fmt.Sprintf("discount code %q: %s", e.Code, e.Reason) }

// codeRE is a well-formed code, letters, digits, hyphens, underscores.
var codeRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CodeKey is the code's case-insensitive key (upper case), or a
// CodeError for a code with spaces or other characters, too long or empty.
// Surrounding spaces are trimmed first.
func CodeKey(code string) (string, error) {
	c := strings.TrimSpace(code)
	if c == "" || len(c) > MaxCodeLen || !codeRE.MatchString(c) {
		return "", &CodeError{Code: code, Reason: ReasonMalformed}
	}
	return strings.ToUpper(c), nil
}

// Day is t's UTC calendar day as codes write it.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// check says whether code c may be used on day today for goods worth
// subtotal, ignoring the per-customer cap.
func (c Code) check(today string, subtotal int64) error {
	refuse := func(reason string) error { return &CodeError{Code: c.Code, Reason: reason, Rules: c} }
	switch {
	case c.Retired:
		return refuse(ReasonRetired)
	case c.Starts != "" && today < c.Starts:
		return refuse(ReasonNotStarted)
	case c.Ends != "" && today > c.Ends:
		return refuse(ReasonExpired)
	case c.MaxUses > 0 && c.Used >= c.MaxUses:
		return refuse(ReasonUsedUp)
	case subtotal < c.MinSubtotal:
		return refuse(ReasonMinimum)
	}
	return nil
}

// Validate checks an admin's code: kind and value, days, caps. It returns
// platform.ErrInvalid (the HTTP layer names the field).
func (c Code) Validate() error {
	if _, err := CodeKey(c.Code); err != nil {
		return platform.ErrInvalid
	}
	ok := c.MinSubtotal >= 0 && c.MaxUses >= 0 && c.MaxPerCustomer >= 0 && validDay(c.Starts) && validDay(c.Ends) &&
		(c.Starts == "" || c.Ends == "" || c.Starts <= c.Ends)
	switch c.Kind {
	case KindPercent:
		ok = ok && c.Value > 0 && c.Value <= 10000
	case KindAmount:
		ok = ok && c.Value > 0
	case KindFreeShipping:
		ok = ok && c.Value == 0
	default:
		ok = false
	}
	if !ok {
		return platform.ErrInvalid
	}
	return nil
}

func validDay(d string) bool {
	if d == "" {
		return true
	}
	_, err := time.Parse(time.DateOnly, d)
	return err == nil
}

const codeColumns = `id, code, kind, value, min_subtotal, starts, ends, max_uses, max_per_customer, used, archived_at`

func scanCode(row interface{ Scan(...any) error }) (Code, error) {
	var c Code
	var archived int64
	err := row.Scan(&c.ID, &c.Code, &c.Kind, &c.Value, &c.MinSubtotal, &c.Starts, &c.Ends, &c.MaxUses, &c.MaxPerCustomer, &c.Used, &archived)
	c.Retired = archived != 0
	return c, err
}

// Querier is a database handle or a transaction.
type Querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// lookup reads a code by what the shopper typed; a CodeError when it is
// malformed or unknown.
func lookup(ctx context.Context, q Querier, typed string) (Code, error) {
	key, err := CodeKey(typed)
	if err != nil {
		return Code{}, err
	}
	c, err := scanCode(q.QueryRowContext(ctx, `SELECT `+codeColumns+` FROM discount_codes WHERE code_key = $1`, key))
	if errors.Is(err, sql.ErrNoRows) {
		return Code{}, &CodeError{Code: typed, Reason: ReasonUnknown}
	}
	if err != nil {
		return Code{}, fmt.Errorf("discount code: %w", err)
	}
	return c, nil
}

// Customer is who a code's per-customer cap counts: an account, a
// guest's email address, or both (a member with an address). Addresses
// are compared trimmed and in lower case, for members and guests alike,
// so a member and a guest with one address, in any case, are one
// customer.
type Customer struct {
	UserID int64  // the account, 0 for a guest
	Email  string // the guest's address, or the member's ("" for none)
}

// Member is an account as a customer, with its address if it has one.
func Member(userID int64, email string) Customer { return Customer{UserID: userID, Email: email} }

// Guest is a guest as a customer, by email.
func Guest(email string) Customer { return Customer{Email: email} }

// key names the customer in discount_uses.customer: the account, else
// the address.
func (c Customer) key() string {
	if c.UserID > 0 {
		return fmt.Sprintf("user:%d", c.UserID)
	}
	return "email:" + c.address()
}

// address is the customer's address as uses compare it ("" for none).
func (c Customer) address() string { return strings.ToLower(strings.TrimSpace(c.Email)) }

// known reports whether the customer is anyone at all (a guest's address
// is not known before checkout).
func (c Customer) known() bool { return c.UserID > 0 || c.address() != "" }

// customerUses is how many orders not cancelled the customer placed with
// code id: as the account, or under the address.
func customerUses(ctx context.Context, q Querier, codeID int64, c Customer) (int64, error) {
	var n int64
	err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM discount_uses WHERE code_id = $1 AND (customer = $2 OR (email <> '' AND email = $3))`,
		codeID, c.key(), c.address()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("discount uses: %w", err)
	}
	return n, nil
}

// CheckCode says whether the shopper may apply the typed code to goods
// worth subtotal: a *CodeError with the reason, or the code. A customer
// not known yet (a guest before checkout) skips the per-customer cap; the
// checkout checks it.
func (s *Service) CheckCode(ctx context.Context, typed string, subtotal int64, customer Customer) (Code, error) {
	c, err := lookup(ctx, s.db, typed)
	if err != nil {
		return Code{}, err
	}
	if err := c.check(Day(s.clock.Now()), subtotal); err != nil {
		return Code{}, err
	}
	if customer.known() && c.MaxPerCustomer > 0 {
		n, err := customerUses(ctx, s.db, c.ID, customer)
		if err != nil {
			return Code{}, err
		}
		if n >= c.MaxPerCustomer {
			return Code{}, &CodeError{Code: typed, Reason: ReasonPerCustomer, Rules: c}
		}
	}
	return c, nil
}

// TakeUse takes one use of code c for order orderID of customer, inside
// the order's transaction tx: a conditional update of the code's row (so
// of racing checkouts only max_uses get through; on PostgreSQL the update
// locks the row until the order commits), then the customer's count,
// read after that lock, and the use's row. A refusal is a *CodeError and
// the caller rolls back.
func TakeUse(ctx context.Context, tx *sql.Tx, c Code, customer Customer, orderID int64, today string) error {
	res, err := tx.ExecContext(ctx, `UPDATE discount_codes SET used = used + 1
		WHERE id = $1 AND archived_at = 0 AND (max_uses = 0 OR used < max_uses) AND (starts = '' OR starts <= $2) AND (ends = '' OR ends >= $2)`, c.ID, today)
	if err != nil {
		return fmt.Errorf("take discount use: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return fmt.Errorf("take discount use: %w", err)
	} else if n == 0 {
		now, err := scanCode(tx.QueryRowContext(ctx, `SELECT `+codeColumns+` FROM discount_codes WHERE id = $1`, c.ID))
		if err != nil {
			return fmt.Errorf("take discount use: %w", err)
		}
		if e := now.check(today, now.MinSubtotal); e != nil {
			e.(*CodeError).Code = c.Code
			return e
		}
		return &CodeError{Code: c.Code, Reason: ReasonUsedUp, Rules: now}
	}
	if c.MaxPerCustomer > 0 {
		n, err := customerUses(ctx, tx, c.ID, customer)
		if err != nil {
			return err
		}
		if n >= c.MaxPerCustomer {
			return &CodeError{Code: c.Code, Reason: ReasonPerCustomer, Rules: c}
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO discount_uses (order_id, code_id, customer, email) VALUES ($1, $2, $3, $4)`,
		orderID, c.ID, customer.key(), customer.address()); err != nil {
		return fmt.Errorf("take discount use: %w", err)
	}
	return nil
}

// GiveBack returns the use order orderID took, if any, inside the cancel's
// transaction tx, so the code may be used again.
func GiveBack(ctx context.Context, tx *sql.Tx, orderID int64) error {
	var codeID int64
	err := tx.QueryRowContext(ctx, `SELECT code_id FROM discount_uses WHERE order_id = $1`, orderID).Scan(&codeID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("give back discount use: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM discount_uses WHERE order_id = $1`, orderID); err != nil {
		return fmt.Errorf("give back discount use: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE discount_codes SET used = used - 1 WHERE id = $1 AND used > 0`, codeID); err != nil {
		return fmt.Errorf("give back discount use: %w", err)
	}
	return nil
}

// Codes lists the discount codes in use, newest first, and the retired
// ones too when withRetired.
func (s *Service) Codes(ctx context.Context, withRetired bool) ([]Code, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+codeColumns+` FROM discount_codes WHERE archived_at = 0 OR $1 ORDER BY id DESC`, withRetired)
	if err != nil {
		return nil, fmt.Errorf("discount codes: %w", err)
	}
	defer rows.Close()
	var out []Code
	for rows.Next() {
		c, err := scanCode(rows)
		if err != nil {
			return nil, fmt.Errorf("discount codes: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// SaveCode creates a code, or changes the rules of the code with the same
// key (in any case), keeping its uses. An invalid code is
// platform.ErrInvalid and changes nothing.
func (s *Service) SaveCode(ctx context.Context, c Code) (Code, error) {
	if err := c.Validate(); err != nil {
		return Code{}, err
	}
	key, _ := CodeKey(c.Code)
	c.Code = strings.TrimSpace(c.Code)
	var saved Code
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		was, err := lookup(ctx, tx, key)
		var ce *CodeError
		existed := !errors.As(err, &ce)
		if existed && err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO discount_codes (code, code_key, kind, value, min_subtotal, starts, ends, max_uses, max_per_customer, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
		ON CONFLICT (code_key) DO UPDATE SET kind = excluded.kind, value = excluded.value, min_subtotal = excluded.min_subtotal,
		starts = excluded.starts, ends = excluded.ends, max_uses = excluded.max_uses, max_per_customer = excluded.max_per_customer`,
			c.Code, key, c.Kind, c.Value, c.MinSubtotal, c.Starts, c.Ends, c.MaxUses, c.MaxPerCustomer, s.clock.Now().Unix()); err != nil {
			return fmt.Errorf("save discount code: %w", err)
		}
		if saved, err = lookup(ctx, tx, key); err != nil {
			return err
		}
		var before audit.Fields
		if existed {
			before = codeFields(was)
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "code.save", Target: "code " + saved.Code, Before: before, After: codeFields(saved)})
	})
	if err != nil {
		return Code{}, err
	}
	return saved, nil
}

// codeFields are a code's rules as the audit log records them.
func codeFields(c Code) audit.Fields {
	return audit.Fields{"kind": c.Kind, "value": c.Value, "min_subtotal": c.MinSubtotal, "starts": c.Starts, "ends": c.Ends,
		"max_uses": c.MaxUses, "max_per_customer": c.MaxPerCustomer}
}

// SetCodeRetired retires the code (as typed, in any case) or brings it
// back: a retired code is refused at checkout and left off the admin's
// list unless asked for; orders that used it keep it. ErrNotFound for no
// such code; it reports whether anything changed.
func (s *Service) SetCodeRetired(ctx context.Context, typed string, retired bool) (Code, bool, error) {
	key, err := CodeKey(typed)
	if err != nil {
		return Code{}, false, platform.ErrNotFound
	}
	q, args := `UPDATE discount_codes SET archived_at = $1 WHERE code_key = $2 AND archived_at = 0`, []any{max(s.clock.Now().Unix(), 1), key}
	if !retired {
		q, args = `UPDATE discount_codes SET archived_at = 0 WHERE code_key = $1 AND archived_at <> 0`, []any{key}
	}
	var c Code
	var n int64
	err = platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("retire code: %w", err)
		}
		if n, err = res.RowsAffected(); err != nil {
			return fmt.Errorf("retire code: %w", err)
		}
		c, err = scanCode(tx.QueryRowContext(ctx, `SELECT `+codeColumns+` FROM discount_codes WHERE code_key = $1`, key))
		if errors.Is(err, sql.ErrNoRows) {
			return platform.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("retire code: %w", err)
		}
		if n == 0 {
			return nil
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "code.retire", Target: "code " + c.Code,
			Before: audit.Fields{"retired": !retired}, After: audit.Fields{"retired": retired}})
	})
	if err != nil {
		return Code{}, false, err
	}
	return c, n > 0, nil
}
