package wiring

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"storefront/store/mail"
	"storefront/store/merchant"
	"storefront/store/orders"
	"storefront/store/pricing"
	"storefront/store/returns"
	"storefront/store/sessions"
	"storefront/views"
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
	// settings are the shop's name, address (where returns are sent,
	// SHOP_ADDRESS until the admin sets one) and currency; tracking is the
	// carrier's link with {tracking} for the number (TRACKING_URL, "" for
	// none).
	settings *merchant.Service
	tracking string
	guest    *guestLinks
}

// guestLinks signs the link of a guest's order, once the HTTP layer has
// given its signer (Services.SignGuestOrders).
type guestLinks struct {
	path atomic.Pointer[func(orderID int64) string]
}

// shopIn is the shop as a message shows it, its amounts in the currency
// of the order the message is about.
func (m mailer) shopIn(currency string) views.Shop {
	s := m.settings.Current()
	c := merchant.MustCurrency(currency)
	return views.Shop{Name: s.ShopName, Currency: views.Currency{Code: c.Code, Symbol: c.Symbol, Digits: c.Digits},
		ContactEmail: s.ContactEmail, Address: s.AddressLines()}
}

// shopOfOrder is shopIn for an order read in tx.
func (m mailer) shopOfOrder(ctx context.Context, tx *sql.Tx, orderID int64) (views.Shop, error) {
	cur, err := orders.CurrencyTx(ctx, tx, orderID)
	if err != nil {
		return views.Shop{}, fmt.Errorf("order mail: %w", err)
	}
	return m.shopIn(cur), nil
}

// emailLines are order lines as messages show them.
func emailLines(lines []orders.OrderLine) []email.Line {
	out := make([]email.Line, 0, len(lines))
	for _, l := range lines {
		out = append(out, email.Line{Name: l.Name, Variant: l.Variant, SKU: l.SKU, Qty: l.Qty, PriceCents: l.PriceCents})
	}
	return out
}

// trackingURL is the carrier's page of a parcel, "" without a link.
func (m mailer) trackingURL(number string) string {
	if m.tracking == "" || number == "" {
		return ""
	}
	return strings.ReplaceAll(m.tracking, "{tracking}", url.PathEscape(number))
}

// orderPlaced confirms a new order to its shopper (a guest's address, or
// the account's if it has one). An order awaiting its card payment is
// confirmed when it is paid (orderMoved), not now: if the payment never
// starts or never comes, the shopper gets no confirmation of an order
// that then disappears.
func (m mailer) orderPlaced(ctx context.Context, tx *sql.Tx, o orders.Order) error {
	if o.Status == orders.OrderAwaitingPayment {
		return nil
	}
	to, err := m.orderRecipient(ctx, tx, o.UserID, o.Email)
	if err != nil || to == "" {
		return err
	}
	d := email.Order{ID: o.ID, Name: o.Address.Name, SubtotalCents: o.SubtotalCents, DiscountCents: o.DiscountCents,
		DiscountCode: o.DiscountCode, ShippingCents: o.ShippingCents, TaxCents: o.TaxCents, TaxAdded: o.TaxMode == pricing.TaxAdded,
		TotalCents: o.TotalCents, URL: m.orderURL(o.UserID, o.ID), ShopURL: m.shop, Lines: emailLines(o.Lines),
		Country: orders.CountryName(o.Address.Country), Shipping: orders.ShippingName(o.Shipping), Payment: o.Payment, Shop: m.shopIn(o.Currency)}
	d.Address = o.Address.Lines()
	if o.Address.Phone != "" {
		d.Address = append(d.Address, "Phone: "+o.Address.Phone)
	}
	return m.enqueue(ctx, tx, "order-placed", to, email.OrderPlaced(d))
}

// orderMoved tells the shopper that the order shipped (with its tracking
// number), was delivered or was cancelled; a card order's payment sends
// its confirmation. An order cancelled while it awaited its payment was
// never confirmed, so its cancel sends nothing either: one clear outcome.
func (m mailer) orderMoved(ctx context.Context, tx *sql.Tx, ch orders.StatusChange) error {
	if ch.From == orders.OrderAwaitingPayment {
		if ch.To != orders.OrderPaid {
			return nil
		}
		o, err := orders.OrderTx(ctx, tx, ch.OrderID)
		if err != nil {
			return fmt.Errorf("order mail: %w", err)
		}
		o.Status = ch.To
		return m.orderPlaced(ctx, tx, o)
	}
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
	shop, err := m.shopOfOrder(ctx, tx, ch.OrderID)
	if err != nil {
		return err
	}
	d := email.Order{Shop: shop, ID: ch.OrderID, Name: ch.ShipName, Tracking: ch.Tracking, TrackingURL: m.trackingURL(ch.Tracking),
		Country: orders.CountryName(ch.ShipCountry), Shipping: orders.ShippingName(ch.Shipping), Payment: ch.Payment,
		PaidCents: ch.PaidCents, Paid: ch.From == orders.OrderPaid, URL: m.orderURL(ch.UserID, ch.OrderID), ShopURL: m.shop}
	return m.enqueue(ctx, tx, "order-"+ch.To, to, render(d))
}

// orderEdited tells the shopper that the shop changed their order: its
// lines and total now, and the difference given back or asked for (with
// the link to the order's page, where they pay it).
func (m mailer) orderEdited(ctx context.Context, tx *sql.Tx, e orders.Edit) error {
	o := e.After
	to, err := m.orderRecipient(ctx, tx, o.UserID, o.Email)
	if err != nil || to == "" {
		return err
	}
	d := email.Order{ID: o.ID, Name: o.Address.Name, SubtotalCents: o.SubtotalCents, DiscountCents: o.DiscountCents,
		DiscountCode: o.DiscountCode, ShippingCents: o.ShippingCents, TaxCents: o.TaxCents, TaxAdded: o.TaxMode == pricing.TaxAdded,
		TotalCents: o.TotalCents, URL: m.orderURL(o.UserID, o.ID), ShopURL: m.shop, Lines: emailLines(o.Lines), Payment: o.Payment,
		Shop: m.shopIn(o.Currency), BackCents: e.Refund.Cents, DueCents: o.DueCents}
	return m.enqueue(ctx, tx, "order-changed", to, email.OrderChanged(d))
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
	shop, err := m.shopOfOrder(ctx, tx, r.OrderID)
	if err != nil {
		return err
	}
	d := email.Return{Shop: shop, ID: r.ID, OrderID: r.OrderID, Status: r.Status, RefundCents: r.RefundCents, Payment: st.Payment,
		ReturnAddress: m.settings.Current().AddressOneLine(), URL: m.orderURL(r.UserID, r.OrderID), ShopURL: m.shop}
	for _, l := range r.Lines {
		d.Lines = append(d.Lines, email.Line{Name: l.Name, Variant: l.Variant, SKU: l.SKU, Qty: l.Qty, PriceCents: l.PriceCents})
	}
	return m.enqueue(ctx, tx, "return-"+r.Status, to, email.ReturnStep(d))
}

// tokenMail sends a verification, password reset or staff invitation link. The message is
// written with mail.LinkSecret where the token goes: the outbox makes the
// token as it sends the message (linkMaker), so no stored body, and no
// page of the admin's outbox, holds a working link. The token made here
// is used by no one.
func (m mailer) tokenMail(ctx context.Context, tx *sql.Tx, t sessions.TokenMail) error {
	l := email.Link{Username: t.Username, Email: t.Email, ShopURL: m.shop, Shop: m.shopIn(m.settings.Current().Currency)}
	kind, render := "email-verify", email.VerifyEmail
	l.URL, l.Valid = m.shop+"/account/email/verify?token="+mail.LinkSecret, "two days"
	switch t.Kind {
	case sessions.TokenReset:
		kind, render = "password-reset", email.PasswordReset
		l.URL, l.Valid = m.shop+"/password/reset?token="+mail.LinkSecret, "one hour"
	case sessions.TokenInvite:
		kind, render = "staff-invite", email.StaffInvite
		l.URL, l.Valid, l.Role = m.shop+"/staff/join?token="+mail.LinkSecret, "seven days", string(t.Role)
	}
	r := render(l)
	_, err := m.outbox.Enqueue(ctx, tx, mail.Message{Kind: kind, To: t.Email, Subject: r.Subject, Text: r.Text, HTML: r.HTML, Link: t.ID})
	return err
}

// linkMaker makes a link's token as the outbox sends its message.
func linkMaker(accounts *sessions.Service) mail.LinkMaker {
	return func(ctx context.Context, ref int64) (string, error) {
		token, err := accounts.ReissueToken(ctx, ref)
		if errors.Is(err, sessions.ErrTokenExpired) {
			return "", mail.ErrLinkGone
		}
		return token, err
	}
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

// orderURL is a shopper's order page: a member's, or a guest's signed
// link, so that every email about a guest's order leads back to it (to
// follow it, pay for it, or ask for a return). "" before the HTTP layer
// gave its signer.
func (m mailer) orderURL(userID, orderID int64) string {
	if userID != orders.GuestUserID {
		return m.shop + "/orders/" + strconv.FormatInt(orderID, 10)
	}
	if sign := m.guest.path.Load(); sign != nil {
		return m.shop + (*sign)(orderID)
	}
	return ""
}
