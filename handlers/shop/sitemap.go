package shop

import (
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/sitemap"
)

// Robots is /robots.txt: every crawler may read the shop but a visitor's
// own pages, the forms, the admin and the catalog's searches and filtered
// listings (web.RobotsDisallow); it names the sitemap index.
func (h *Handler) Robots(c echo.Context) error {
	var b strings.Builder
	b.WriteString("User-agent: *\n")
	for _, p := range web.RobotsDisallow() {
		b.WriteString("Disallow: " + p + "\n")
	}
	b.WriteString("\nSitemap: " + h.cfg.ShopURL + "/sitemap.xml\n")
	c.Response().Header().Set("Cache-Control", "public, max-age=3600")
	return c.Blob(http.StatusOK, "text/plain; charset=utf-8", []byte(b.String()))
}

// SitemapIndex is /sitemap.xml, the index of the sitemap files.
func (h *Handler) SitemapIndex(c echo.Context) error {
	return h.sitemapFile(c, sitemap.IndexName)
}

// SitemapFile is one sitemap file, /sitemaps/<name>.xml.
func (h *Handler) SitemapFile(c echo.Context) error {
	name, ok := strings.CutSuffix(c.Param("file"), ".xml")
	if !ok || name == sitemap.IndexName {
		return web.NotFound("There is no sitemap of that name.")
	}
	return h.sitemapFile(c, name)
}

func (h *Handler) sitemapFile(c echo.Context, name string) error {
	b, ok, err := h.sitemap.File(c.Request().Context(), name)
	if err != nil {
		return err
	}
	if !ok {
		return web.NotFound("There is no sitemap of that name.")
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=600")
	return c.Blob(http.StatusOK, "application/xml; charset=utf-8", b)
}
