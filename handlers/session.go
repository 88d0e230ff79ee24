package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

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
	// CartCount is the total quantity in the session's cart (the header badge).
	CartCount int64
	// Unread is the signed-in user's unread notifications.
	Unread int64
	// Flash is a one-time message left by the previous request.
	Flash string

	claim    userClaim // the verified cookie claim, before the server agreed
	hasClaim bool
	loaded   bool
}

// SignedIn reports whether a shopper is signed in.
func (s *Session) SignedIn() bool { return s.UserID > 0 }

// claimedID is the user the signed cookie names, before the server agreed
// (0 for none): the session read fetches their unread count on the way.
func (s *Session) claimedID() int64 {
	if s.hasClaim {
		return s.claim.ID
	}
	return 0
}

// sessionCtxKey is where the middleware keeps the *Session in the Echo context.
const sessionCtxKey = "storefront.session"

// sessionStore is the part of the store that sessions use.
type sessionStore interface {
	LoadSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error)
	ViewSession(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, error)
	CreateSession(ctx context.Context, token string, userID int64) error
	UpdateToken(ctx context.Context, token string, guest bool, itemID int64) error
	RecentlyViewed(ctx context.Context, token string) ([]int64, error)
	SessionWithRecent(ctx context.Context, token string, claimedUserID int64) (sessions.SessionState, []int64, error)
	NewSessionView(ctx context.Context, token string, itemID int64) error
	SignIn(ctx context.Context, oldToken, newToken string, userID int64) (int64, error)
	EndSession(ctx context.Context, token string) error
}

// session returns the request's session; the middleware always sets one.
func session(c echo.Context) *Session {
	if s, ok := c.Get(sessionCtxKey).(*Session); ok {
		return s
	}
	return &Session{}
}

// loadSession is the session middleware of page routes: it reads the `sid`
// and `user` cookies into a Session (verified locally) and then the
// server-side state. A page read (GET, HEAD) takes it from the store's
// client-side cache where it can, with the session's touch written behind;
// anything that changes data reads it from Redis in one round trip.
func (h *Handler) loadSession(next echo.HandlerFunc) echo.HandlerFunc {
	return h.sessionMiddleware(next, false)
}

// checkSession is loadSession that always reads the server-side session
// from Redis (the admin pages).
func (h *Handler) checkSession(next echo.HandlerFunc) echo.HandlerFunc {
	return h.sessionMiddleware(next, true)
}

func (h *Handler) sessionMiddleware(next echo.HandlerFunc, always bool) echo.HandlerFunc {
	return func(c echo.Context) error {
		s := h.readCookies(c)
		c.Set(sessionCtxKey, s)
		if s.Token != "" {
			load := h.store.LoadSession
			if m := c.Request().Method; !always && (m == http.MethodGet || m == http.MethodHead) {
				load = h.store.ViewSession
			}
			st, err := load(c.Request().Context(), s.Token, s.claimedID())
			if err != nil {
				return err
			}
			h.applyState(c, s, st)
		}
		return next(c)
	}
}

// noSession is the session middleware of operations routes: an empty
// Session, and no cookie is read or written.
func noSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(sessionCtxKey, &Session{})
		return next(c)
	}
}

// sessionForErrorPage reads the session of a request that matched no
// route (a 404 or 405), so that its error page still shows who is signed
// in. A failure leaves the visitor anonymous: the page must render.
func (h *Handler) sessionForErrorPage(c echo.Context) {
	if c.Get(sessionCtxKey) == nil {
		_ = h.loadSession(func(echo.Context) error { return nil })(c)
	}
}

// cookieSession is the session middleware of a route that reads the
// server-side state itself, pipelined with its own Redis commands (the item
// page): only the cookies are read here.
func (h *Handler) cookieSession(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		c.Set(sessionCtxKey, h.readCookies(c))
		return next(c)
	}
}

// readCookies verifies the cookies without touching Redis. A forged token
// or a tampered, expired or foreign `user` cookie is simply ignored.
func (h *Handler) readCookies(c echo.Context) *Session {
	s := &Session{}
	if ck, err := c.Cookie(tokenCookie); err == nil && h.validToken(ck.Value) {
		s.Token = ck.Value
	}
	if ck, err := c.Cookie(userCookie); err == nil && s.Token != "" {
		s.claim, s.hasClaim = h.decodeUser(ck.Value, s.Token)
	}
	if ck, err := c.Cookie(flashCookie); err == nil && ck.Value != "" {
		s.Flash = h.takeFlash(c)
	}
	return s
}

// applyState merges the server's view of the token into the session. An
// unknown token is dropped (the visitor is anonymous and its cookies are
// cleared); a `user` claim counts only if `login:` says the same user.
func (h *Handler) applyState(c echo.Context, s *Session, st sessions.SessionState) {
	s.loaded = true
	if !st.Known {
		s.Token, s.hasClaim = "", false
		h.clearCookie(c, tokenCookie)
		h.clearCookie(c, userCookie)
		return
	}
	s.CartCount = st.CartCount
	if s.hasClaim && st.UserID == s.claim.ID {
		s.UserID, s.UserName, s.IsAdmin = s.claim.ID, s.claim.Name, s.claim.Admin
		s.Unread = st.Unread
	}
}

// ensureSession gives the visitor a server-side session if it has none
// (first item view, cart write): a new guest token and its cookie.
func (h *Handler) ensureSession(c echo.Context) (*Session, error) {
	s := session(c)
	if s.Token != "" {
		return s, nil
	}
	token := h.newToken()
	if err := h.store.CreateSession(c.Request().Context(), token, 0); err != nil {
		return nil, err
	}
	s.Token, s.loaded = token, true
	h.setCookie(c, tokenCookie, token, 0)
	return s, nil
}
