package stats

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
)

// scrapeTimeout bounds the Redis and database reads of one /metrics
// scrape, so that a slow server costs a gap in the graphs, not a hung
// scrape.
const scrapeTimeout = 500 * time.Millisecond

// poolCollector exposes the go-redis connection pool's statistics.
type poolCollector struct{ rdb redis.UniversalClient }

var poolDescs = struct {
	hits, misses, timeouts, waits, waitSecs, conns, idle, stale, pending *prometheus.Desc
}{
	hits:     prometheus.NewDesc("storefront_redis_pool_hits_total", "Times a free Redis connection was found in the pool.", nil, nil),
	misses:   prometheus.NewDesc("storefront_redis_pool_misses_total", "Times no free Redis connection was in the pool.", nil, nil),
	timeouts: prometheus.NewDesc("storefront_redis_pool_timeouts_total", "Times waiting for a Redis connection timed out.", nil, nil),
	waits:    prometheus.NewDesc("storefront_redis_pool_waits_total", "Times a request waited for a Redis connection.", nil, nil),
	waitSecs: prometheus.NewDesc("storefront_redis_pool_wait_seconds_total", "Time spent waiting for Redis connections.", nil, nil),
	conns:    prometheus.NewDesc("storefront_redis_pool_conns", "Redis connections in the pool.", nil, nil),
	idle:     prometheus.NewDesc("storefront_redis_pool_idle_conns", "Idle Redis connections in the pool.", nil, nil),
	stale:    prometheus.NewDesc("storefront_redis_pool_stale_conns_total", "Stale Redis connections removed from the pool.", nil, nil),
	pending:  prometheus.NewDesc("storefront_redis_pool_pending_requests", "Requests waiting for a Redis connection.", nil, nil),
}

// Describe sends the pool series' descriptions.
func (poolCollector) Describe(ch chan<- *prometheus.Desc) {
	d := poolDescs
	for _, x := range []*prometheus.Desc{d.hits, d.misses, d.timeouts, d.waits, d.waitSecs, d.conns, d.idle, d.stale, d.pending} {
		ch <- x
	}
}

// Collect reads the pool's counters; it makes no network call.
func (p poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := p.rdb.PoolStats()
	d := poolDescs
	counter := func(desc *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, v)
	}
	gauge := func(desc *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v)
	}
	counter(d.hits, float64(st.Hits))
	counter(d.misses, float64(st.Misses))
	counter(d.timeouts, float64(st.Timeouts))
	counter(d.waits, float64(st.WaitCount))
	counter(d.waitSecs, float64(st.WaitDurationNs)/1e9)
	gauge(d.conns, float64(st.TotalConns))
	gauge(d.idle, float64(st.IdleConns))
	counter(d.stale, float64(st.StaleConns))
	gauge(d.pending, float64(st.PendingRequests))
}
