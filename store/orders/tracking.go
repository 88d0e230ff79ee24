package orders

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// MaxTrackingLen is the longest tracking number accepted.
const MaxTrackingLen = 64

// ErrBadTracking means a tracking number that is empty, too long, or has
// characters other than letters, digits, spaces and - . / _.
var ErrBadTracking = errors.New("tracking number: 1 to 64 letters, digits, spaces or - . / _")

// CleanTracking trims a typed tracking number and checks it.
func CleanTracking(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > MaxTrackingLen {
		return "", ErrBadTracking
	}
	for _, r := range s {
		if !(r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(" -./_", r))) {
			return "", ErrBadTracking
		}
	}
	return s, nil
}

// ShipOrder moves order id to shipped with the carrier's tracking number,
// which the order keeps (its page and the shipped email show it); the move
// is MoveOrder's, with the number stored in the same transaction. A bad
// number is ErrBadTracking and changes nothing.
func (s *Service) ShipOrder(ctx context.Context, id int64, tracking, actor string) (Order, error) {
	t, err := CleanTracking(tracking)
	if err != nil {
		return Order{}, err
	}
	return s.moveOrder(ctx, id, 0, "", OrderShipped, actor, t)
}

// afterMoveTx stores the tracking number of a shipped order and tells the
// OnStatusTx listeners, inside the move's transaction.
func (s *Service) afterMoveTx(ctx context.Context, tx *sql.Tx, ch StatusChange) error {
	if ch.Tracking != "" {
		if _, err := tx.ExecContext(ctx, `UPDATE orders SET tracking = $1 WHERE id = $2`, ch.Tracking, ch.OrderID); err != nil {
			return fmt.Errorf("move order %d: tracking: %w", ch.OrderID, err)
		}
	}
	if len(s.statusTx) == 0 {
		return nil
	}
	if err := tx.QueryRowContext(ctx, `SELECT email, ship_name, ship_country, shipping_method, payment_method, paid_cents FROM orders WHERE id = $1`, ch.OrderID).
		Scan(&ch.Email, &ch.ShipName, &ch.ShipCountry, &ch.Shipping, &ch.Payment, &ch.PaidCents); err != nil {
		return fmt.Errorf("move order %d: %w", ch.OrderID, err)
	}
	if err := s.statusInTx(ctx, tx, ch); err != nil {
		return fmt.Errorf("move order %d: %w", ch.OrderID, err)
	}
	return nil
}

// tracking reads an order's tracking number.
func (s *Service) tracking(ctx context.Context, id int64) (string, error) {
	var t string
	if err := s.db.QueryRowContext(ctx, `SELECT tracking FROM orders WHERE id = $1`, id).Scan(&t); err != nil {
		return "", fmt.Errorf("order %d: tracking: %w", id, err)
	}
	return t, nil
}
