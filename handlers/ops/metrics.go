package ops

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"storefront/handlers/web"
)

// metricsBearer reports whether the request carries the metrics token.
func (h *Handler) metricsBearer(c echo.Context) bool {
	tok, ok := strings.CutPrefix(c.Request().Header.Get(echo.HeaderAuthorization), "Bearer ")
	return ok && h.cfg.MetricsToken != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(h.cfg.MetricsToken)) == 1
}

// Metrics serves /metrics to the admin session or to a scraper with the
// bearer METRICS_TOKEN: the series count sessions, carts, checkouts and
// orders, which are the shop's business only.
func (h *Handler) Metrics(c echo.Context) error {
	if !h.metricsBearer(c) {
		s, err := h.web.MetricsViewer(c)
		if err != nil {
			return err
		}
		if !s.SignedIn() {
			c.Response().Header().Set("WWW-Authenticate", `Bearer realm="metrics"`)
			return echo.NewHTTPError(http.StatusUnauthorized, "Metrics need the admin session or the metrics token.")
		}
		if err := h.web.CheckAdmin(c, s); err != nil {
			return err
		}
	}
	web.NoStore(c)
	promhttp.HandlerFor(h.web.Registry(), promhttp.HandlerOpts{}).ServeHTTP(c.Response(), c.Request())
	return nil
}
