package web

import (
	"bytes"
	"net/http"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"storefront/views"
)

// Render writes a component with a status. It renders into a buffer first
// so that a failing component yields a clean error page, not half a page.
func Render(c echo.Context, status int, t templ.Component) error {
	var buf bytes.Buffer
	if err := t.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	return c.HTMLBlob(status, buf.Bytes())
}

// Chrome builds the layout's per-request data. The layout shows who is
// signed in (name, cart and unread counts), so every page built with it is
// private and never stored: the header is set here, once, rather than by
// each handler.
func (k *Kit) Chrome(c echo.Context, title string) views.Chrome {
	NoStore(c)
	s := SessionOf(c)
	feed := ""
	if path := c.Request().URL.Path; strings.HasPrefix(path, "/articles") || strings.HasPrefix(path, "/groups/") {
		feed = ArticlesFeed // the board's pages link its feed
	}
	return views.Chrome{
		Feed:      feed,
		Title:     title,
		Flash:     s.Flash,
		FlashOK:   true,
		Viewer:    ViewerOf(s),
		Canonical: k.Canonical(c),
		NoIndex:   NoIndex(c),
	}
}

// ViewerOf is the header's account area for the session.
func ViewerOf(s *Session) views.Viewer {
	return views.Viewer{
		SignedIn:  s.SignedIn(),
		Name:      s.UserName,
		IsAdmin:   s.IsAdmin,
		CartCount: s.CartCount,
		Unread:    s.Unread,
	}
}

// WantsJSON reports whether the client asked for a JSON answer.
func WantsJSON(c echo.Context) bool {
	return strings.Contains(c.Request().Header.Get(echo.HeaderAccept), echo.MIMEApplicationJSON)
}

// Redirect answers a form post with 303 See Other (post/redirect/get).
func Redirect(c echo.Context, to string) error {
	return c.Redirect(http.StatusSeeOther, to)
}
