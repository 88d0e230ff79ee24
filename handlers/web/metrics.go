package web

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// metrics are the HTTP layer's Prometheus series, on a registry of their
// own so that tests can build several handlers in one process.
type metrics struct {
	reg      *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_http_requests_total",
			Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "storefront_http_request_duration_seconds",
			Help:    "HTTP request latency by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
	}
	m.reg.MustRegister(m.requests, m.latency,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{Namespace: "storefront"}))
	return m
}

func (m *metrics) observe(route, method string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route).Observe(d.Seconds())
}

// MetricsViewer reads who is signed in for /metrics, an operations route:
// like the session middleware, but it leaves the flash and every cookie
// alone.
func (k *Kit) MetricsViewer(c echo.Context) (*Session, error) {
	s := &Session{}
	if ck, err := c.Cookie(tokenCookie); err == nil && k.validToken(ck.Value) {
		s.Token = ck.Value
	}
	if ck, err := c.Cookie(userCookie); err == nil && s.Token != "" {
		s.claim, s.hasClaim = k.decodeUser(ck.Value, s.Token)
	}
	if !s.hasClaim {
		return s, nil
	}
	st, err := k.deps.Sessions.LoadSession(c.Request().Context(), s.Token, s.ClaimedID())
	if err != nil {
		return nil, err
	}
	if st.Known && st.UserID == s.claim.ID {
		s.UserID, s.UserName, s.IsAdmin = s.claim.ID, s.claim.Name, s.claim.Admin
	}
	return s, nil
}
