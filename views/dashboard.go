package views

import (
	"fmt"
	"strconv"
)

// DashboardData is the admin dashboard: numbers shared by all instances,
// already formatted for reading at a glance.
type DashboardData struct {
	UpdatedAt string // clock time of the reading, UTC
	Instance  string // the instance that drew the page
	Cache     DashCache
	Sessions  DashSessions
	Popular   DashPopular
	Rows      DashRows
	Workers   []DashWorker
	Redis     DashRedis
	DB        DashDB
	// The charts, and their numbers as text for those who cannot see them.
	HitChart     Chart
	SessionChart Chart
	History      []DashSample
}

// DashCache is the page cache section.
type DashCache struct {
	Hits, Misses, Stale, Bypass, Renders int64
	Ratio                                string // "62.5%", or "–" before any lookup
	RatioOf                              string // "5 of 8 lookups"
	Pages, PageBytes                     int64
	ScannedAt                            string // when pages were counted; "" if never
	TTL                                  string
	Top                                  int64
	TopHits                              []DashItem
}

// DashSessions is the sessions section.
type DashSessions struct {
	Total, SignedIn, Guests, Limit, Carts, Evicted int64
	Used                                           string // share of SESSION_LIMIT in use
	CartsAt                                        string
	Cleanup                                        DashWorker
}

// DashPopular is the view ranking: its top items and the rescale.
type DashPopular struct {
	Items       []DashItem
	NextRescale string
	Interval    string
	Keep        int64
}

// DashItem is an item with a count (views or cache hits).
type DashItem struct {
	ID    int64
	Name  string
	Count string
}

// DashRows is the row cache section.
type DashRows struct {
	Rows  []DashRow
	Total int64
}

// DashRow is one scheduled row.
type DashRow struct {
	ItemID      int64
	Name        string
	Delay       string
	Next        string
	LastRefresh string
	Overdue     bool
}

// DashWorker is one background worker's state.
type DashWorker struct {
	Name     string
	LastRun  string // "14:05:07 (12 s ago)", or "never"
	Result   string
	Error    string
	Instance string
	Holder   string // lease holder, or a note for workers without a lease
	Stale    bool   // no report for a long while
}

// DashRedis is the Redis section.
type DashRedis struct {
	Mode, Version, Memory string
	MemoryShort           string // for the tile: "–" when not reported
	Keys                  int64
	Masters               int
}

// DashDB is the database section.
type DashDB struct {
	Kind, Size string
}

// DashSample is one row of the charts' numbers.
type DashSample struct {
	At       string
	Ratio    string
	Lookups  int64
	Sessions int64
	SignedIn int64
}

// Count formats a whole number with thousands separators: 12,345.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

// Bytes formats a size: 512 B, 1.5 KB, 12.3 MB (powers of 1024).
func Bytes(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10) + " B"
	}
	v, units := float64(n), []string{"KB", "MB", "GB", "TB"}
	for i, u := range units {
		v /= 1024
		if v < 1024 || i == len(units)-1 {
			return fmt.Sprintf("%.1f %s", v, u)
		}
	}
	return ""
}

func itoa(n int) string { return strconv.Itoa(n) }

// px formats an SVG coordinate.
func px(v float64) string { return coord(v) }

// meterWidth is the share of limit in use, as the width of a 100-unit bar.
func meterWidth(n, limit int64) string {
	if limit <= 0 {
		return "0"
	}
	return coord(100 * clamp(float64(n)/float64(limit)))
}
