package web

import (
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// CompressPages gzips responses for clients that accept it. Two kinds of
// response are already compressed and skipped: the item page, which the
// page cache stores gzip and serves as stored, and embedded static files,
// compressed once at start-up; /metrics is compressed by the Prometheus
// handler itself when the scraper asks. Bodies under a kilobyte stay plain: the
// gzip framing would cost more than it saves.
func CompressPages() echo.MiddlewareFunc {
	return middleware.GzipWithConfig(middleware.GzipConfig{
		MinLength: 1024,
		Skipper: func(c echo.Context) bool {
			p := c.Path()
			return p == "/items/:id" || p == "/favicon.ico" || p == "/metrics" || strings.HasPrefix(p, "/static/")
		},
	})
}
