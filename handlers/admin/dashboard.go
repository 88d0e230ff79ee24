package admin

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/platform"
	"storefront/store/stats"
	"storefront/views"
)

// System is GET /admin/system: the engineering numbers (page cache,
// sessions, Redis, workers), drawn from numbers that live in Redis so
// that every instance shows the same.
func (h *Handler) System(c echo.Context) error {
	d, err := h.dashboardData(c)
	if err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.SystemPage(h.web.Chrome(c, "System"), d))
}

// dashboardData reads the dashboard and formats it for the page.
func (h *Handler) dashboardData(c echo.Context) (views.DashboardData, error) {
	ctx := c.Request().Context()
	d, err := h.stats.Dashboard(ctx)
	if err != nil {
		return views.DashboardData{}, err
	}
	ids := make([]int64, 0, len(d.Page.TopHits)+len(d.Popular)+len(d.Rows))
	for _, it := range d.Page.TopHits {
		ids = append(ids, it.ItemID)
	}
	for _, it := range d.Popular {
		ids = append(ids, it.ItemID)
	}
	for _, r := range d.Rows {
		ids = append(ids, r.ItemID)
	}
	rows, err := h.catalog.Items(ctx, ids)
	if err != nil {
		return views.DashboardData{}, err
	}
	name := func(id int64) string {
		if it, ok := rows[id]; ok {
			return it.Name
		}
		return "Item " + web.Itoa(id)
	}
	opt := h.cfg
	f := dashFormat{now: d.At}
	out := views.DashboardData{
		UpdatedAt: f.clock(d.At) + " UTC",
		Instance:  h.cfg.Instance,
		Cache:     f.cache(d.Page, opt, name),
		Sessions:  f.sessions(d, opt),
		Popular:   f.popular(d, opt, name),
		Rows:      f.rows(d, name),
		Redis:     f.redis(d.Redis),
		DB:        views.DashDB{Kind: dbName(d.DBKind), Size: views.Bytes(d.DBSize)},
	}
	out.Cache.Top = h.cfg.PageCacheTop // the page cache decides which pages are cached
	for _, w := range d.Workers {
		out.Workers = append(out.Workers, f.worker(w, opt))
	}
	out.HitChart, out.SessionChart, out.History = f.charts(d.History, opt.StatsInterval)
	return out, nil
}

// dashFormat turns the store's numbers and times into words, relative to
// the moment of the reading.
type dashFormat struct{ now time.Time }

func (f dashFormat) clock(t time.Time) string { return t.UTC().Format("15:04:05") }

// when is a clock time with how long ago or how soon: "14:05:07 (12 s ago)".
func (f dashFormat) when(t time.Time) string {
	if t.IsZero() {
		return "never"
	}
	d := f.now.Sub(t)
	switch {
	case d >= time.Second:
		return f.clock(t) + " (" + shortDuration(d) + " ago)"
	case d <= -time.Second:
		return f.clock(t) + " (in " + shortDuration(-d) + ")"
	}
	return f.clock(t) + " (now)"
}

func (f dashFormat) cache(p stats.PageCacheReport, opt Settings, name func(int64) string) views.DashCache {
	c := views.DashCache{Hits: p.Hits, Misses: p.Misses, Stale: p.Stale, Bypass: p.Bypass, Renders: p.Renders,
		Ratio: "–", RatioOf: "no lookups yet", Pages: p.Keyspace.Pages, PageBytes: p.Keyspace.PageBytes,
		TTL: shortDuration(opt.PageCacheTTL)}
	if n := p.Lookups(); n > 0 {
		c.Ratio = percent(float64(p.Hits) / float64(n))
		c.RatioOf = views.Count(p.Hits) + " of " + views.Count(n) + " lookups"
	}
	if !p.Keyspace.At.IsZero() {
		c.ScannedAt = f.when(p.Keyspace.At)
	}
	for _, it := range p.TopHits {
		c.TopHits = append(c.TopHits, views.DashItem{ID: it.ItemID, Name: name(it.ItemID), Count: views.Counted(it.Hits, "hit", "hits")})
	}
	return c
}

func (f dashFormat) sessions(d stats.Dashboard, opt Settings) views.DashSessions {
	s := views.DashSessions{Total: d.Sessions.Total, SignedIn: d.Sessions.SignedIn, Guests: d.Sessions.Guests,
		Limit: opt.SessionLimit, Carts: d.Page.Keyspace.Carts, Evicted: d.Sessions.Evicted,
		Cleanup: f.worker(stats.WorkerReport{Status: d.Sessions.Cleanup}, opt)}
	s.Used = "0%"
	if opt.SessionLimit > 0 {
		s.Used = percent(float64(s.Total) / float64(opt.SessionLimit))
	}
	if !d.Page.Keyspace.At.IsZero() {
		s.CartsAt = f.when(d.Page.Keyspace.At)
	}
	return s
}

func (f dashFormat) popular(d stats.Dashboard, opt Settings, name func(int64) string) views.DashPopular {
	p := views.DashPopular{Interval: shortDuration(opt.RescaleInterval), Keep: opt.ViewedKeep,
		NextRescale: "within " + shortDuration(opt.RescaleInterval)}
	for _, it := range d.Popular {
		p.Items = append(p.Items, views.DashItem{ID: it.ItemID, Name: name(it.ItemID), Count: views.Counted(int64(math.Round(it.Views)), "view", "views")})
	}
	for _, w := range d.Workers {
		if w.Name == "rescale" && !w.LastRun.IsZero() {
			next := w.LastRun.Add(opt.RescaleInterval)
			p.NextRescale = f.when(next)
			if !next.After(f.now) {
				p.NextRescale = "due now"
			}
		}
	}
	return p
}

func (f dashFormat) rows(d stats.Dashboard, name func(int64) string) views.DashRows {
	r := views.DashRows{Total: d.RowCount}
	for _, row := range d.Rows {
		v := views.DashRow{ItemID: row.ItemID, Name: name(row.ItemID), Delay: "–", Next: f.when(row.Next),
			LastRefresh: "not yet", Overdue: f.now.Sub(row.Next) > 5*time.Second}
		if row.Delay > 0 {
			v.Delay = strconv.FormatFloat(row.Delay, 'f', -1, 64) + " s"
		}
		if !row.LastRefresh.IsZero() {
			v.LastRefresh = f.when(row.LastRefresh)
		}
		r.Rows = append(r.Rows, v)
	}
	return r
}

// workerQuiet is how long a worker may go without a report before the
// dashboard flags it (the rescale reports once per RESCALE_INTERVAL).
const workerQuiet = 2 * time.Minute

func (f dashFormat) worker(w stats.WorkerReport, opt Settings) views.DashWorker {
	v := views.DashWorker{Name: w.Name, LastRun: f.when(w.LastRun), Result: w.Result, Error: w.Error,
		Instance: orDash(w.Instance), Holder: w.Holder}
	quiet := workerQuiet
	if w.Name == "rescale" {
		quiet = 2*opt.RescaleInterval + time.Minute
	}
	v.Stale = !w.LastRun.IsZero() && f.now.Sub(w.LastRun) > quiet
	if v.Holder == "" {
		v.Holder = "every instance"
		if w.Leased {
			v.Holder = "free"
		}
	}
	return v
}

func (f dashFormat) redis(r stats.RedisInfo) views.DashRedis {
	v := views.DashRedis{Mode: r.Mode, Version: r.Version, Memory: "not reported", MemoryShort: "–", Keys: r.Keys, Masters: r.Masters}
	if v.Version == "" {
		v.Version = "not reported"
	}
	if r.UsedMemory >= 0 {
		v.Memory = views.Bytes(r.UsedMemory)
		v.MemoryShort = v.Memory
	}
	return v
}

func dbName(kind string) string {
	switch kind {
	case platform.DBPostgres:
		return "PostgreSQL"
	case platform.DBSQLite:
		return "SQLite"
	}
	return kind
}

// shortDuration writes a duration as people read it: 300ms, 45 s, 5 min,
// 2 h 30 min.
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return strconv.Itoa(int(d.Round(time.Second)/time.Second)) + " s"
	case d < time.Hour:
		m, s := int(d/time.Minute), int(d%time.Minute/time.Second)
		if s == 0 || m >= 10 {
			return strconv.Itoa(m) + " min"
		}
		return fmt.Sprintf("%d min %d s", m, s)
	}
	h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
	if m == 0 {
		return strconv.Itoa(h) + " h"
	}
	return fmt.Sprintf("%d h %d min", h, m)
}

// percent writes a share with one decimal: 62.5%.
func percent(f float64) string {
	if f > 0 && f < 0.001 {
		return "<0.1%"
	}
	return strings.TrimSuffix(strconv.FormatFloat(100*f, 'f', 1, 64), ".0") + "%"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
