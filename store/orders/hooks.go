package orders

import (
	"context"
	"database/sql"
)

// StatusChange is an order's move, as the OnStatusTx listeners hear of it
// inside the move's transaction.
type StatusChange struct {
	OrderID  int64
	UserID   int64 // GuestUserID for a guest's order
	Email    string
	ShipName string
	From, To string
	Tracking string // set when the order ships
	// ShipCountry and Shipping are where and how it goes; Payment and
	// PaidCents how it was paid (what its messages say of the money).
	ShipCountry string
	Shipping    string
	Payment     string
	PaidCents   int64
}

// OnPlacedTx registers a listener that writes inside the checkout's
// transaction, once the order and its lines are written (the wiring
// queues the confirmation email there). An error rolls the order back:
// a listener fails only when it cannot write.
func (s *Service) OnPlacedTx(f func(ctx context.Context, tx *sql.Tx, o Order) error) {
	s.placedTx = append(s.placedTx, f)
}

// OnStatusTx registers a listener that writes inside an order move's
// transaction (the wiring queues the shipped, delivered and cancelled
// emails there). An error rolls the move back.
func (s *Service) OnStatusTx(f func(ctx context.Context, tx *sql.Tx, ch StatusChange) error) {
	s.statusTx = append(s.statusTx, f)
}

// OnEditedTx registers a listener that writes inside an edit's
// transaction (the wiring queues the email that tells the shopper of the
// change, and of the difference to pay). An error rolls the edit back.
func (s *Service) OnEditedTx(f func(ctx context.Context, tx *sql.Tx, e Edit) error) {
	s.editedTx = append(s.editedTx, f)
}

func (s *Service) placedInTx(ctx context.Context, tx *sql.Tx, o Order) error {
	for _, f := range s.placedTx {
		if err := f(ctx, tx, o); err != nil {
			return err
		}
	}
	return nil
}

func (s *Service) statusInTx(ctx context.Context, tx *sql.Tx, ch StatusChange) error {
	for _, f := range s.statusTx {
		if err := f(ctx, tx, ch); err != nil {
			return err
		}
	}
	return nil
}
