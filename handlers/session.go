package handlers

import (
	"context"

	"github.com/labstack/echo/v4"

	"storefront/store"
)

// Session is what one request knows of its visitor, read once by the
// session middleware and kept in the request context.
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
	LoadSession(ctx context.Context, token string, claimedUserID int64) (store.SessionState, error)
	CreateSession(ctx context.Context, token string, userID int64) error
	UpdateToken(ctx context.Context, token string, guest bool, itemID int64) error
	RecentlyViewed(ctx context.Context, token string) ([]int64, error)
	SessionWithRecent(ctx context.Context, token string, claimedUserID int64) (store.SessionState, []int64, error)
	NewSessionView(ctx context.Context, token string, itemID int64) error
	SignIn(ctx context.Context, oldToken, newToken string, userID int64) error
	EndSession(ctx context.Context, token string) error
}

// session returns the request's session; the middleware always sets one.
func session(c echo.Context) *Session {
	if s, ok := c.Get(sessionCtxKey).(*Session); ok {
		return s
	}
	return &Session{}
}

// sessionMiddleware reads the `sid` and `user` cookies into a Session. The
// cookies are verified locally; the server-side state is then read in one
// round trip, unless the route loads it itself (item pages share that
// round trip with their own Redis work).
func (h *Handler) sessionMiddleware(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if sessionless(c) {
			c.Set(sessionCtxKey, &Session{})
			return next(c)
		}
		s := h.readCookies(c)
		c.Set(sessionCtxKey, s)
		if s.Token != "" && !selfLoading(c) {
			st, err := h.store.LoadSession(c.Request().Context(), s.Token, s.claimedID())
			if err != nil {
				return err
			}
			h.applyState(c, s, st)
		}
		return next(c)
	}
}

// sessionless routes serve the same thing to everyone and skip the
// session entirely.
func sessionless(c echo.Context) bool {
	switch c.Path() {
	case "/static/*", "/healthz", "/readyz", "/metrics", "/api/items/:id":
		return true
	}
	return false
}

// selfLoading routes read the session state themselves, pipelined with
// their own Redis commands.
func selfLoading(c echo.Context) bool {
	return c.Request().Method == "GET" && c.Path() == "/items/:id"
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
func (h *Handler) applyState(c echo.Context, s *Session, st store.SessionState) {
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
