package admin

import (
	"math"
	"time"

	"storefront/store/stats"
	"storefront/views"
)

// chartSpan is how far back the charts look.
const chartSpan = time.Hour

// chartRowEvery spaces the rows of the charts' numbers table.
const chartRowEvery = 5 * time.Minute

// charts draws the hit ratio and the sessions over the last hour from the
// stats worker's samples (oldest first), and lists their numbers as text.
func (f dashFormat) charts(samples []stats.StatsSample, every time.Duration) (hit, sessions views.Chart, rows []views.DashSample) {
	from := f.now.Add(-chartSpan)
	var ratio, total, signedIn []views.ChartPoint
	var first, last *stats.StatsSample
	lo, hi, latest := math.Inf(1), math.Inf(-1), math.NaN()
	for i := range samples {
		s := &samples[i]
		total = append(total, views.ChartPoint{At: s.At, V: float64(s.Sessions)})
		signedIn = append(signedIn, views.ChartPoint{At: s.At, V: float64(s.SignedIn)})
		if i == 0 {
			first = s
			continue
		}
		r := intervalRatio(&samples[i-1], s)
		ratio = append(ratio, views.ChartPoint{At: s.At, V: r})
		if !math.IsNaN(r) {
			lo, hi, latest = math.Min(lo, r), math.Max(hi, r), r
		}
		last = s
	}
	hitDesc := "No page lookups in the last hour."
	if !math.IsNaN(latest) {
		hitDesc = "Share of page lookups served from the cache in each " + shortDuration(every) + " interval: latest " +
			percent(latest) + ", lowest " + percent(lo) + ", highest " + percent(hi) + "."
		if first != nil && last != nil {
			n := lookups(last) - lookups(first)
			hitDesc += " Over the hour " + percent(float64(last.Hits-first.Hits)/float64(max(n, 1))) + " of " +
				views.Count(n) + " lookups."
		}
	}
	hit = views.LineChart(views.ChartSpec{ID: "chart-hits", Title: "Page cache hit ratio, last hour", Desc: hitDesc,
		From: from, To: f.now, YMax: 1, YLabel: func(v float64) string { return percent(v) },
		Series: []views.ChartSeries{{Name: "Hit ratio", Points: ratio, Fill: true}},
		Empty:  "No page lookups in the last hour"})

	sessDesc := "No samples in the last hour yet."
	if n := len(samples); n > 0 {
		cur := samples[n-1]
		sLo, sHi := int64(math.MaxInt64), int64(0)
		for _, s := range samples {
			sLo, sHi = min(sLo, s.Sessions), max(sHi, s.Sessions)
		}
		sessDesc = "Sessions at the last sample: " + views.Count(cur.Sessions) + " (" + views.Count(cur.SignedIn) +
			" signed in); lowest " + views.Count(sLo) + ", highest " + views.Count(sHi) + " in the last hour."
	}
	sessions = views.LineChart(views.ChartSpec{ID: "chart-sessions", Title: "Sessions, last hour", Desc: sessDesc,
		From: from, To: f.now, YLabel: func(v float64) string { return views.Count(int64(v)) },
		Series: []views.ChartSeries{{Name: "All sessions", Points: total, Fill: true}, {Name: "Signed in", Points: signedIn}},
		Empty:  "No samples yet: the stats worker records one every " + shortDuration(every)})
	return hit, sessions, f.sampleRows(samples)
}

// intervalRatio is the hit ratio of the lookups between two samples; NaN
// when there were none (or the counters were reset).
func intervalRatio(a, b *stats.StatsSample) float64 {
	n, h := lookups(b)-lookups(a), b.Hits-a.Hits
	if n <= 0 || h < 0 || h > n {
		return math.NaN()
	}
	return float64(h) / float64(n)
}

func lookups(s *stats.StatsSample) int64 { return s.Hits + s.Misses + s.Stale }

// sampleRows picks a sample every chartRowEvery, newest first, each with
// the hit ratio since the row before it.
func (f dashFormat) sampleRows(samples []stats.StatsSample) []views.DashSample {
	var picked []*stats.StatsSample
	var next time.Time
	for i := range samples {
		if s := &samples[i]; len(picked) == 0 || !s.At.Before(next) {
			picked = append(picked, s)
			next = s.At.Truncate(chartRowEvery).Add(chartRowEvery)
		}
	}
	if n := len(samples); n > 0 && picked[len(picked)-1] != &samples[n-1] {
		picked = append(picked, &samples[n-1])
	}
	rows := make([]views.DashSample, 0, len(picked))
	for i := len(picked) - 1; i >= 0; i-- {
		s := picked[i]
		r := views.DashSample{At: f.clock(s.At), Ratio: "–", Sessions: s.Sessions, SignedIn: s.SignedIn}
		if i > 0 {
			r.Lookups = lookups(s) - lookups(picked[i-1])
			if v := intervalRatio(picked[i-1], s); !math.IsNaN(v) {
				r.Ratio = percent(v)
			}
		}
		rows = append(rows, r)
	}
	return rows
}
