package wiring

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"

	"storefront/store/mail"
	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/store/returns"
	"storefront/store/sessions"
	"storefront/views/email"
)

// DefaultShopURL is where the emailed links point when SHOP_URL is not set.
const DefaultShopURL = "http://localhost:8080"

// mailer renders the shop's messages and writes them to the outbox inside
// the transaction of the change that causes them: the orders' and the
// accounts' in-transaction hooks.
type mailer struct {
	outbox *mail.Service
	shop   string // SHOP_URL, without a trailing slash
}

// orderPlaced confirms a new order to its shopper (a guest's address, or
// the account's if it has one).
func (m mailer) orderPlaced(ctx context.Context, tx *sql.Tx, o orders.Order) error {
	to, err := m.orderRecipient(ctx, tx, o.UserID, o.Email)
	if err != nil || to == "" {
		return err
	}
	d := email.Order{ID: o.ID, Name: o.Address.Name, SubtotalCents: o.SubtotalCents, DiscountCents: o.DiscountCents,
		DiscountCode: o.DiscountCode, ShippingCents: o.ShippingCents, TaxCents: o.TaxCents, TaxAdded: o.TaxMode == pricing.TaxAdded,
		TotalCents: o.TotalCents, URL: m.orderURL(o.UserID, o.ID), ShopURL: m.shop}
	for _, l := range o.Lines {
		d.Lines = append(d.Lines, email.Line{Name: l.Name, Qty: l.Qty, PriceCents: l.PriceCents})
	}
	a := o.Address
	for _, s := range []string{a.Name, a.Line1, a.Line2, a.City + " " + a.Postcode, a.Country} {
		if s != "" && s != " " {
			d.Address = append(d.Address, s)
		}
	}
	return m.enqueue(ctx, tx, "order-placed", to, email.OrderPlaced(d))
}

// orderMoved tells the shopper that the order shipped (with its tracking
// number), was delivered or was cancelled.
func (m mailer) orderMoved(ctx context.Context, tx *sql.Tx, ch orders.StatusChange) error {
	render := map[string]func(email.Order) email.Rendered{
		orders.OrderShipped: email.OrderShipped, orders.OrderDelivered: email.OrderDelivered, orders.OrderCancelled: email.OrderCancelled,
	}[ch.To]
	if render == nil {
		return nil
	}
	to, err := m.orderRecipient(ctx, tx, ch.UserID, ch.Email)
	if err != nil || to == "" {
		return err
	}
	d := email.Order{ID: ch.OrderID, Name: ch.ShipName, Tracking: ch.Tracking, URL: m.orderURL(ch.UserID, ch.OrderID), ShopURL: m.shop}
	return m.enqueue(ctx, tx, "order-"+ch.To, to, render(d))
}

// returnStep tells the shopper where their return stands, at each step.
func (m mailer) returnStep(ctx context.Context, tx *sql.Tx, st returns.Step) error {
	r := st.Return
	if r.Status == returns.Refunding {
		return nil
	}
	to, err := m.orderRecipient(ctx, tx, r.UserID, st.Email)
	if err != nil || to == "" {
		return err
	}
	d := email.Return{ID: r.ID, OrderID: r.OrderID, Status: r.Status, RefundCents: r.RefundCents, URL: m.orderURL(r.UserID, r.OrderID), ShopURL: m.shop}
	for _, l := range r.Lines {
		d.Lines = append(d.Lines, email.Line{Name: l.Name, Qty: l.Qty, PriceCents: l.PriceCents})
	}
	return m.enqueue(ctx, tx, "return-"+r.Status, to, email.ReturnStep(d))
}

// tokenMail sends a verification or password reset link.
func (m mailer) tokenMail(ctx context.Context, tx *sql.Tx, t sessions.TokenMail) error {
	l := email.Link{Username: t.Username, Email: t.Email, ShopURL: m.shop}
	if t.Kind == sessions.TokenReset {
		l.URL, l.Valid = m.shop+"/password/reset?token="+url.QueryEscape(t.Token), "one hour"
		return m.enqueue(ctx, tx, "password-reset", t.Email, email.PasswordReset(l))
	}
	l.URL, l.Valid = m.shop+"/account/email/verify?token="+url.QueryEscape(t.Token), "two days"
	return m.enqueue(ctx, tx, "email-verify", t.Email, email.VerifyEmail(l))
}

func (m mailer) enqueue(ctx context.Context, tx *sql.Tx, kind, to string, r email.Rendered) error {
	_, err := m.outbox.Enqueue(ctx, tx, mail.Message{Kind: kind, To: to, Subject: r.Subject, Text: r.Text, HTML: r.HTML})
	return err
}

// orderRecipient is a guest order's address, or the account's ("" when it
// has none, or one the outbox would refuse: then no mail, and the order
// still goes through).
func (m mailer) orderRecipient(ctx context.Context, tx *sql.Tx, userID int64, guestEmail string) (string, error) {
	to := guestEmail
	if userID != orders.GuestUserID {
		var err error
		if to, err = sessions.EmailTx(ctx, tx, userID); err != nil {
			return "", fmt.Errorf("order mail: %w", err)
		}
	}
	if _, err := mail.ParseAddress(to); err != nil {
		return "", nil
	}
	return to, nil
}

// orderURL is a shopper's order page; a guest's order has no page to link
// without its signed link, which only the confirmation page gives.
func (m mailer) orderURL(userID, orderID int64) string {
	if userID == orders.GuestUserID {
		return ""
	}
	return m.shop + "/orders/" + strconv.FormatInt(orderID, 10)
}
