package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/static"
)

// Static serves embedded files. A URL with the current content hash is
// cached for a year; an old or missing hash gets the current file with a
// short lifetime, so a stale page still finds its stylesheet.
func (h *Handler) Static(c echo.Context) error {
	a, ok, current := static.Lookup(c.Param("*"))
	if !ok {
		return notFound("No such file.")
	}
	cc := "public, max-age=300"
	if current {
		cc = "public, max-age=31536000, immutable"
	}
	c.Response().Header().Set("Cache-Control", cc)
	c.Response().Header().Set("ETag", `"`+a.Hash+`"`)
	if c.Request().Header.Get("If-None-Match") == `"`+a.Hash+`"` {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, a.ContentType, a.Body)
}
