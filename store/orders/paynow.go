package orders

import (
	"context"
	"errors"
	"fmt"

	"storefront/store/platform"
)

// ErrNotAwaitingPayment means an order cannot be paid now: it is paid,
// cancelled, or paid outside the shop. Nothing changed.
var ErrNotAwaitingPayment = fmt.Errorf("%w: the order is not awaiting a payment", platform.ErrInvalid)

// ErrPaymentUnderway means the provider took the payment and its
// confirmation is on its way: paying again would pay twice.
var ErrPaymentUnderway = errors.New("the payment is being confirmed")

// Resumer is a payment method paid first whose payment can be picked up
// again on an order still awaiting it ("pay now"): Resume returns the
// provider's page, the one the order was sent to while it is open, else
// a new one.
type Resumer interface {
	Resume(ctx context.Context, o Order, back ReturnURLs) (redirectURL string, err error)
}

// PayNow sends the shopper back to pay for order o, which must be
// awaiting its payment through a method that can resume it, or owe the
// difference an edit asked for through one that can ask for it
// (BalanceAsker): ErrNotAwaitingPayment otherwise (nothing changed).
func (s *Service) PayNow(ctx context.Context, o Order, back ReturnURLs) (string, error) {
	if p, ok := s.PaymentByCode(o.Payment); ok && owesBalance(o) {
		if b, ok := p.(BalanceAsker); ok {
			return b.AskBalance(ctx, o, back)
		}
	}
	if o.Status != OrderAwaitingPayment {
		return "", ErrNotAwaitingPayment
	}
	p, ok := s.PaymentByCode(o.Payment)
	r, resumable := p.(Resumer)
	if !ok || !resumable {
		return "", ErrNotAwaitingPayment
	}
	return r.Resume(ctx, o, back)
}

// CanPayNow reports whether order o can be paid now (its page offers it).
func (s *Service) CanPayNow(o Order) bool {
	p, ok := s.PaymentByCode(o.Payment)
	_, resumable := p.(Resumer)
	_, asks := p.(BalanceAsker)
	return ok && ((resumable && o.Status == OrderAwaitingPayment) || (asks && owesBalance(o)))
}

// SetPaymentSession records the provider's payment page order id was
// sent to, while it awaits its payment.
func (s *Service) SetPaymentSession(ctx context.Context, id int64, session string) error {
	if _, err := s.db.ExecContext(ctx, `UPDATE orders SET payment_session = $1 WHERE id = $2 AND status = $3`,
		session, id, OrderAwaitingPayment); err != nil {
		return fmt.Errorf("order %d: payment session: %w", id, err)
	}
	return nil
}
