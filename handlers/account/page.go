package account

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/addressbook"
	"storefront/store/keys"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/views"
)

// Book is the address book the account page edits.
type Book interface {
	List(ctx context.Context, userID int64) ([]addressbook.Entry, error)
	Get(ctx context.Context, userID, id int64) (addressbook.Entry, error)
	Add(ctx context.Context, userID int64, a orders.Address, makeDefault bool) (addressbook.Entry, error)
	Update(ctx context.Context, userID, id int64, a orders.Address) error
	SetDefault(ctx context.Context, userID, id int64) error
	Delete(ctx context.Context, userID, id int64) error
}

// History is the account's orders, for the account page.
type History interface {
	Orders(ctx context.Context, userID int64, limit, offset int) ([]orders.Order, int, error)
}

// recentOrders is how many orders the account page shows.
const recentOrders = 5

// ShowAccount is GET /account (signed in only): recent orders, the
// address book and the sessions signed in.
func (h *Handler) ShowAccount(c echo.Context) error {
	return h.renderAccount(c, http.StatusOK, views.CheckoutForm{})
}

func (h *Handler) renderAccount(c echo.Context, status int, form views.CheckoutForm) error {
	s := web.SessionOf(c)
	ctx := c.Request().Context()
	list, total, err := h.history.Orders(ctx, s.UserID, recentOrders, 0)
	if err != nil {
		return err
	}
	entries, err := h.book.List(ctx, s.UserID)
	if err != nil {
		return err
	}
	live, err := h.accounts.UserSessionList(ctx, s.UserID, s.Token)
	if err != nil {
		return err
	}
	email, err := h.accounts.Email(ctx, s.UserID)
	if err != nil {
		return err
	}
	d := views.AccountData{Username: s.UserName, Email: email.Email, EmailVerified: email.Verified, MoreOrders: total > len(list), Full: len(entries) >= addressbook.MaxAddresses,
		Form: form, Countries: web.CountryOptions()}
	for _, o := range list {
		d.Orders = append(d.Orders, views.OrderSummary{ID: o.ID, Status: o.Status, TotalCents: o.TotalCents, ItemCount: o.ItemCount, Placed: web.When(o.CreatedAt)})
	}
	for _, e := range entries {
		d.Addresses = append(d.Addresses, views.AddressView{ID: e.ID, Lines: web.AddressLines(e.Address), Default: e.Default})
	}
	for _, us := range live {
		d.Sessions = append(d.Sessions, views.AccountSessionView{ID: us.ID, Device: us.Device, SignedIn: web.When(us.SignedIn),
			LastSeen: web.When(us.LastSeen), Current: us.Current})
	}
	return web.Render(c, status, views.AccountPage(h.web.Chrome(c, "Your account"), d))
}

// readAddress reads and checks a posted address; a field sent twice is a
// request our form cannot make (400).
func readAddress(c echo.Context) (orders.Address, map[string]string, error) {
	form, err := web.PostForm(c)
	if err != nil {
		return orders.Address{}, nil, err
	}
	v := make(map[string]string, len(web.AddressFields))
	for _, name := range web.AddressFields {
		switch vals := form[name]; len(vals) {
		case 0:
		case 1:
			v[name] = strings.TrimSpace(vals[0])
		default:
			return orders.Address{}, nil, web.BadRequest("Send each field of the address form once.")
		}
	}
	a := web.ReadAddress(v)
	return a, web.AddressProblems(a), nil
}

// AddAddress is POST /account/addresses: save an address (422 with the
// form as typed when a field is wrong, or when no more addresses fit).
func (h *Handler) AddAddress(c echo.Context) error {
	a, errs, err := readAddress(c)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return h.renderAccount(c, http.StatusUnprocessableEntity, web.AddressForm(a, errs))
	}
	s := web.SessionOf(c)
	_, err = h.book.Add(c.Request().Context(), s.UserID, a, c.FormValue("default") == "1")
	if errors.Is(err, addressbook.ErrFull) {
		return web.Unprocessable(c, "Your address book is full: delete an address to add another.")
	}
	if err != nil {
		return err
	}
	h.web.SetFlash(c, "Address saved.")
	return web.Redirect(c, "/account#addresses-h")
}

// addressParam reads :id and finds that address among the account's own;
// another account's address is not found.
func (h *Handler) addressParam(c echo.Context) (addressbook.Entry, error) {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return addressbook.Entry{}, web.NotFound("There is no such address in your address book.")
	}
	e, err := h.book.Get(c.Request().Context(), web.SessionOf(c).UserID, id)
	if errors.Is(err, platform.ErrNotFound) {
		return addressbook.Entry{}, web.NotFound("There is no such address in your address book.")
	}
	return e, err
}

// EditAddressForm is GET /account/addresses/:id.
func (h *Handler) EditAddressForm(c echo.Context) error {
	e, err := h.addressParam(c)
	if err != nil {
		return err
	}
	return h.renderAddressEdit(c, http.StatusOK, e.ID, web.AddressForm(e.Address, nil))
}

func (h *Handler) renderAddressEdit(c echo.Context, status int, id int64, f views.CheckoutForm) error {
	d := views.AddressEditData{ID: id, Form: f, Countries: web.CountryOptions()}
	return web.Render(c, status, views.AddressEditPage(h.web.Chrome(c, "Edit address"), d))
}

// UpdateAddress is POST /account/addresses/:id.
func (h *Handler) UpdateAddress(c echo.Context) error {
	e, err := h.addressParam(c)
	if err != nil {
		return err
	}
	a, errs, err := readAddress(c)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		return h.renderAddressEdit(c, http.StatusUnprocessableEntity, e.ID, web.AddressForm(a, errs))
	}
	if err := h.book.Update(c.Request().Context(), web.SessionOf(c).UserID, e.ID, a); err != nil {
		return h.addressGone(err)
	}
	h.web.SetFlash(c, "Address saved.")
	return web.Redirect(c, "/account#addresses-h")
}

// DefaultAddress is POST /account/addresses/:id/default.
func (h *Handler) DefaultAddress(c echo.Context) error {
	e, err := h.addressParam(c)
	if err != nil {
		return err
	}
	if err := h.book.SetDefault(c.Request().Context(), web.SessionOf(c).UserID, e.ID); err != nil {
		return h.addressGone(err)
	}
	h.web.SetFlash(c, "Checkout now fills in that address.")
	return web.Redirect(c, "/account#addresses-h")
}

// DeleteAddress is POST /account/addresses/:id/delete.
func (h *Handler) DeleteAddress(c echo.Context) error {
	e, err := h.addressParam(c)
	if err != nil {
		return err
	}
	if err := h.book.Delete(c.Request().Context(), web.SessionOf(c).UserID, e.ID); err != nil {
		return h.addressGone(err)
	}
	h.web.SetFlash(c, "Address deleted.")
	return web.Redirect(c, "/account#addresses-h")
}

// addressGone answers an address deleted between the read and the write
// (another tab) as not found.
func (h *Handler) addressGone(err error) error {
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no such address in your address book.")
	}
	return err
}

// EndSession is POST /account/sessions/:id/end: sign one of the account's
// other devices out. The current session is ended with Sign out; another
// account's session is not found.
func (h *Handler) EndSession(c echo.Context) error {
	s := web.SessionOf(c)
	sid := c.Param("id")
	if sid == "" || len(sid) > 64 || sid == keys.SessionID(s.Token) {
		return web.NotFound("There is no such session of yours to end. Use Sign out to end this one.")
	}
	err := h.accounts.EndUserSession(context.WithoutCancel(c.Request().Context()), s.UserID, sid)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no such session of yours to end: it may have ended already.")
	}
	if err != nil {
		return err
	}
	h.web.SetFlash(c, "That device is signed out.")
	return web.Redirect(c, "/account#sessions-h")
}

// EndOtherSessions is POST /account/sessions/end-others: sign every other
// device out; this one stays.
func (h *Handler) EndOtherSessions(c echo.Context) error {
	s := web.SessionOf(c)
	n, err := h.accounts.EndUserSessions(context.WithoutCancel(c.Request().Context()), s.UserID, s.Token)
	if err != nil {
		return err
	}
	h.web.SetFlash(c, "Signed out everywhere else ("+views.Counted(int64(n), "session", "sessions")+" ended).")
	return web.Redirect(c, "/account#sessions-h")
}
