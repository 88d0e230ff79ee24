package ops

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/static"
)

// Static serves embedded files. A URL with the current content hash is
// cached for a year; an old or missing hash gets the current file with a
// short lifetime, so a stale page still finds its stylesheet.
func (h *Handler) Static(c echo.Context) error {
	a, ok, current := static.Lookup(c.Param("*"))
	if !ok {
		return web.NotFound("No such file.")
	}
	cc := "public, max-age=300"
	if current {
		cc = "public, max-age=31536000, immutable"
	}
	return serveAsset(c, a, cc)
}

// Favicon serves the site icon at the address browsers ask for on their
// own, cached for a day (its URL cannot carry a content hash).
func (h *Handler) Favicon(c echo.Context) error {
	a, ok, _ := static.Lookup("img/favicon.ico")
	if !ok {
		return web.NotFound("No such file.")
	}
	return serveAsset(c, a, "public, max-age=86400")
}

// serveAsset answers with an embedded file: the copy compressed at start-up
// when the client accepts gzip, the plain one otherwise; 304 on a matching
// ETag. Each representation has its own strong ETag.
func serveAsset(c echo.Context, a static.Asset, cacheControl string) error {
	hdr := c.Response().Header()
	gz := web.AcceptsGzip(c.Request().Header.Get(echo.HeaderAcceptEncoding))
	etag := `"` + a.Hash + `"`
	if gz {
		etag = `"` + a.Hash + `-gz"`
	}
	hdr.Set("Cache-Control", cacheControl)
	hdr.Set("ETag", etag)
	hdr.Add("Vary", "Accept-Encoding")
	if web.ETagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	if gz {
		hdr.Set(echo.HeaderContentEncoding, "gzip")
		return c.Blob(http.StatusOK, a.ContentType, a.Gzip)
	}
	return c.Blob(http.StatusOK, a.ContentType, a.Body)
}
