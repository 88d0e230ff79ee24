package views

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Chart is a line chart drawn as inline SVG on the server: no script, no
// library. Geometry is computed here, so the template only places shapes.
type Chart struct {
	ID          string // prefix of the element ids (title, desc)
	Title       string
	Desc        string // what the chart shows, in words and numbers
	Width       int
	Height      int
	Left, Right float64 // the plot area's x range
	Top, Bottom float64 // the plot area's y range (Top < Bottom)
	XTicks      []ChartTick
	YTicks      []ChartTick
	Series      []ChartLine
	Empty       string // shown instead of lines when there is no data
}

// ChartTick is a labelled grid line at Pos (x or y, in pixels).
type ChartTick struct {
	Pos   float64
	Label string
}

// ChartLine is one drawn series: its polyline segments (gaps split them),
// single points as dots, and the area under it when Fill is set.
type ChartLine struct {
	Name     string
	Class    string // chart-s0, chart-s1: colours in app.css
	Segments []string
	Areas    []string
	Dots     []ChartDot
	Fill     bool
}

// ChartDot is a point in SVG user units.
type ChartDot struct{ X, Y float64 }

// add draws a run of points without gaps: a polyline (and the area under
// it), or a dot when the run is a single point.
func (l *ChartLine) add(seg []ChartDot) {
	switch {
	case len(seg) == 1:
		l.Dots = append(l.Dots, seg[0])
	case len(seg) > 1:
		pts := make([]string, len(seg), len(seg)+2)
		for i, d := range seg {
			pts[i] = coord(d.X) + "," + coord(d.Y)
		}
		l.Segments = append(l.Segments, strings.Join(pts, " "))
		if l.Fill {
			base := coord(chartBottom)
			pts = append(pts, coord(seg[len(seg)-1].X)+","+base, coord(seg[0].X)+","+base)
			l.Areas = append(l.Areas, strings.Join(pts, " "))
		}
	}
}

// ChartPoint is a value at a time; NaN leaves a gap.
type ChartPoint struct {
	At time.Time
	V  float64
}

// ChartSeries is a named series of points, oldest first.
type ChartSeries struct {
	Name   string
	Points []ChartPoint
	Fill   bool
}

// ChartSpec is what a line chart shows.
type ChartSpec struct {
	ID, Title, Desc string
	From, To        time.Time
	// YMax fixes the top of the scale (1 for ratios); 0 picks a round
	// number above the largest value.
	YMax   float64
	YLabel func(float64) string
	Series []ChartSeries
	Empty  string
}

// Chart geometry, in SVG user units (the SVG scales to its box).
const (
	chartW, chartH        = 640, 220
	chartLeft, chartRight = 52, 628
	chartTop, chartBottom = 12, 190
	chartXTickEvery       = 15 * time.Minute
	chartYTicks           = 4
)

// LineChart lays a chart out.
func LineChart(spec ChartSpec) Chart {
	c := Chart{ID: spec.ID, Title: spec.Title, Desc: spec.Desc, Width: chartW, Height: chartH,
		Left: chartLeft, Right: chartRight, Top: chartTop, Bottom: chartBottom}
	span := spec.To.Sub(spec.From).Seconds()
	if span <= 0 {
		span = 1
	}
	x := func(t time.Time) float64 {
		return chartLeft + (chartRight-chartLeft)*clamp(t.Sub(spec.From).Seconds()/span)
	}
	top := spec.YMax
	if top <= 0 {
		top = niceMax(seriesMax(spec.Series))
	}
	y := func(v float64) float64 { return chartBottom - (chartBottom-chartTop)*clamp(v/top) }
	label := spec.YLabel
	if label == nil {
		label = func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	}
	for i := 0; i <= chartYTicks; i++ {
		v := top * float64(i) / chartYTicks
		c.YTicks = append(c.YTicks, ChartTick{Pos: y(v), Label: label(v)})
	}
	for t := spec.From.Truncate(chartXTickEvery); !t.After(spec.To); t = t.Add(chartXTickEvery) {
		if !t.Before(spec.From) {
			c.XTicks = append(c.XTicks, ChartTick{Pos: x(t), Label: t.UTC().Format("15:04")})
		}
	}
	points := 0
	for i, s := range spec.Series {
		line := ChartLine{Name: s.Name, Class: "chart-s" + strconv.Itoa(i), Fill: s.Fill}
		var seg []ChartDot
		for _, p := range s.Points {
			if math.IsNaN(p.V) || p.At.Before(spec.From) || p.At.After(spec.To) {
				line.add(seg)
				seg = nil
				continue
			}
			points++
			seg = append(seg, ChartDot{X: x(p.At), Y: y(p.V)})
		}
		line.add(seg)
		c.Series = append(c.Series, line)
	}
	if points == 0 {
		c.Empty = spec.Empty
	}
	return c
}

func coord(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func clamp(f float64) float64 { return math.Max(0, math.Min(1, f)) }

func seriesMax(ss []ChartSeries) float64 {
	m := 0.0
	for _, s := range ss {
		for _, p := range s.Points {
			if !math.IsNaN(p.V) && p.V > m {
				m = p.V
			}
		}
	}
	return m
}

// niceMax is a round number at or above v that splits into chartYTicks
// round steps (1, 2, 2.5 or 5 times a power of ten each).
func niceMax(v float64) float64 {
	if v <= 0 {
		return chartYTicks
	}
	raw := v / chartYTicks
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if step := m * pow; step >= raw {
			if step < 1 { // counts: whole steps
				step = 1
			}
			return step * chartYTicks
		}
	}
	return 10 * pow * chartYTicks
}
