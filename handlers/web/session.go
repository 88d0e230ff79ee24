package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/sessions"
)

// Session is what one request knows of its visitor, read once by the
// session middleware of the route's group and kept in the request context.
type Session struct {
	// Token is the live server-side session, or "" for a visitor without one.
	Token string
	// UserID and UserName are set only when the signed `user` cookie and the
	// server-side session agree on who is signed in.
	UserID   int64
	UserName string
	IsAdmin  bool
	// Role is a staff member's role, read from the database by the admin
	// routes' guard (RequireStaff); RoleNone elsewhere.
	Role sessions.Role
	// CartCount is the total quantity in the session's cart (the header badge).
	CartCount int64
	// Unread is the signed-in user's unread notifications.
	Unread int64
	// Flash is a one-time message left by the previous request.
	Flash string

	claim    userClaim // the verified cookie claim, before the server agreed
	hasClaim bool
}

// SignedIn reports whether a shopper is signed in.
func (s *Session) SignedIn() bool { return s.UserID > 0 }

// ClaimedID is the user the signed cookie names, before the server agreed
// (0 for none): a session read fetches their unread count on the way.
func (s *Session) ClaimedID() int64 {
	if s.hasClaim {
		return s.claim.ID
	}
	return 0
}

// sessionCtxKey is where the middleware keeps the *Session in the Echo context.
const sessionCtxKey = "storefront.session"

// SessionOf returns the request's session; the middleware always sets one.
func SessionOf(c echo.Context) *Session {
	if s, ok := c.Get(sessionCtxKey).(*Session); ok {
		return s
	}
	return &Session{}
}

// LoadSession is the session middleware of page routes: it reads the `sid`
// and `user` cookies into a Session (verified locally) and then the
// server-side state. A page read (GET, HEAD) takes it from the store's
// client-side cache where it can, with the session's touch written behind;
// anything that changes data reads it from Redis in one round trip.
func (k *Kit) LoadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return k.sessionMiddleware(next, false)
}

// CheckSession is LoadSession that always reads the server-side session
// from Redis (the admin pages).
func (k *Kit) CheckSession(next echo.HandlerFunc) echo.HandlerFunc {
	return k.sessionMiddleware(next, true)
}

func (k *Kit) sessionMiddleware(next echo.HandlerFunc, always bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		s := k.readCookies(c)
		c.Set(sessionCtxKey, s)
		if s.Token != "" {
			load := k.deps.Views.LoadSession
			if m := c.Request().Method; !always && (m == http.MethodGet || m == http.MethodHead) {
				load = k.deps.Views.ViewSession
			}
			st, err := load(c.Request().Context(), s.Token, s.ClaimedID())
			if err != nil {
				return err
			}
			k.ApplyState(c, s, st)
		}
		return next(c)
	}
}

// NoSession is the session middleware of operations routes: an empty
// Session, and no cookie is read or written.
func NoSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(sessionCtxKey, &Session{})
		return next(c)
	}
}

// sessionForErrorPage reads the session of a request that matched no
// route (a 404 or 405), so that its error page still shows who is signed
// in. A failure leaves the visitor anonymous: the page must render.
func (k *Kit) sessionForErrorPage(c echo.Context) {
	if c.Get(sessionCtxKey) == nil {
		_ = k.LoadSession(func(echo.Context) error { return nil })(c)
	}
}

// CookieSession is the session middleware of a route that reads the
// server-side state itself, pipelined with its own Redis commands (the item
// page): only the cookies are read here.
func (k *Kit) CookieSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(sessionCtxKey, k.readCookies(c))
		return next(c)
	}
}

// readCookies verifies the cookies without touching Redis. A forged token
// or a tampered, expired or foreign `user` cookie is simply ignored.
func (k *Kit) readCookies(c echo.Context) *Session {
	s := &Session{}
	if ck, err := c.Cookie(tokenCookie); err == nil && k.validToken(ck.Value) {
		s.Token = ck.Value
	}
	if ck, err := c.Cookie(userCookie); err == nil && s.Token != "" {
		s.claim, s.hasClaim = k.decodeUser(ck.Value, s.Token)
	}
	if ck, err := c.Cookie(flashCookie); err == nil && ck.Value != "" {
		s.Flash = k.takeFlash(c)
	}
	return s
}

// ApplyState merges the server's view of the token into the session. An
// unknown token is dropped (the visitor is anonymous and its cookies are
// cleared); a `user` claim counts only if `login:` says the same user.
func (k *Kit) ApplyState(c echo.Context, s *Session, st sessions.SessionState) {
	if !st.Known {
		k.Anonymous(c, s, true)
		return
	}
	s.CartCount = k.BuyableCount(c, st.CartLines)
	if s.hasClaim && st.UserID == s.claim.ID {
		s.UserID, s.UserName, s.IsAdmin = s.claim.ID, s.claim.Name, s.claim.Admin
		s.Unread = st.Unread
	}
}

// BuyableCount is the header's cart count of lines: only those that can
// be bought now (an archived item, a variant no longer sold or one sold
// out is not counted). Should the catalog not answer, the badge counts
// every line rather than fail the page.
func (k *Kit) BuyableCount(c echo.Context, lines []cart.Line) int64 {
	if len(lines) == 0 {
		return 0
	}
	refs := make([]catalog.LineRef, len(lines))
	for i, l := range lines {
		refs[i] = catalog.LineRef{ItemID: l.ItemID, VariantID: l.VariantID, Qty: l.Qty}
	}
	n, err := k.deps.Buyable.BuyableCount(c.Request().Context(), refs)
	if err != nil {
		k.log.Warn("cart count: the catalog did not answer", "err", err)
		return cart.Count(lines)
	}
	return n
}

// Anonymous makes the visitor anonymous for the rest of the request: no
// token, no claim. With clearCookies its `sid` and `user` cookies are
// cleared too (the token is unknown, or the visitor signed out).
func (k *Kit) Anonymous(c echo.Context, s *Session, clearCookies bool) {
	s.Token, s.hasClaim = "", false
	if clearCookies {
		k.clearCookie(c, tokenCookie)
		k.clearCookie(c, userCookie)
	}
}

// NewSession gives the visitor the new server-side session token and
// sends its cookie.
func (k *Kit) NewSession(c echo.Context, s *Session, token string) {
	s.Token = token
	k.setCookie(c, tokenCookie, token, 0)
}

// EnsureSession gives the visitor a server-side session if it has none
// (first item view, cart write): a new guest token and its cookie.
func (k *Kit) EnsureSession(c echo.Context) (*Session, error) {
	s := SessionOf(c)
	if s.Token != "" {
		return s, nil
	}
	token := k.NewToken()
	if err := k.deps.Sessions.CreateSession(c.Request().Context(), token, 0); err != nil {
		return nil, err
	}
	k.NewSession(c, s, token)
	return s, nil
}
