package seed

import "math"

// The shapes the drawings are made of, as signed distances in canvas
// pixels, and the ways to combine them.

// hypot without math.Hypot's care for overflow, which these sizes never
// need.
func hypot(x, y float64) float64 { return math.Sqrt(x*x + y*y) }

// shape is a signed distance (negative inside, in canvas pixels) and a
// box outside which the distance is positive, so pixels far from a part
// skip it.
type shape struct {
	d              func(x, y float64) float64
	x0, y0, x1, y1 float64
}

func circle(cx, cy, r float64) shape {
	return shape{func(x, y float64) float64 { return hypot(x-cx, y-cy) - r }, cx - r, cy - r, cx + r, cy + r}
}

func ellipse(cx, cy, rx, ry float64) shape {
	return shape{func(x, y float64) float64 {
		return (hypot((x-cx)/rx, (y-cy)/ry) - 1) * min(rx, ry)
	}, cx - rx, cy - ry, cx + rx, cy + ry}
}

// box is a rectangle centred on cx, cy with half sizes hw, hh and corner
// radius r.
func box(cx, cy, hw, hh, r float64) shape {
	return shape{func(x, y float64) float64 {
		qx, qy := math.Abs(x-cx)-hw+r, math.Abs(y-cy)-hh+r
		return hypot(max(qx, 0), max(qy, 0)) + min(max(qx, qy), 0) - r
	}, cx - hw, cy - hh, cx + hw, cy + hh}
}

// rect is a rectangle from x0, y0 to x1, y1 with corner radius r.
func rect(x0, y0, x1, y1, r float64) shape {
	return box((x0+x1)/2, (y0+y1)/2, (x1-x0)/2, (y1-y0)/2, r)
}

// capsule is a line from x0, y0 to x1, y1, r thick each side, with round
// ends.
func capsule(x0, y0, x1, y1, r float64) shape {
	dx, dy := x1-x0, y1-y0
	l2 := dx*dx + dy*dy
	return shape{func(x, y float64) float64 {
		t := 0.0
		if l2 > 0 {
			t = min(1, max(0, ((x-x0)*dx+(y-y0)*dy)/l2))
		}
		return hypot(x-x0-t*dx, y-y0-t*dy) - r
	}, min(x0, x1) - r, min(y0, y1) - r, max(x0, x1) + r, max(y0, y1) + r}
}

// poly is a convex polygon through the points (x, y pairs, either way
// round); its distance is the largest outside any edge, exact enough for
// the edges' anti-aliasing.
func poly(pts ...float64) shape {
	area := 0.0
	for i := 0; i < len(pts); i += 2 {
		j := (i + 2) % len(pts)
		area += pts[i]*pts[j+1] - pts[j]*pts[i+1]
	}
	sign := 1.0
	if area < 0 {
		sign = -1
	}
	type edge struct{ x, y, nx, ny float64 }
	var edges []edge
	s := shape{x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1)}
	for i := 0; i < len(pts); i += 2 {
		j := (i + 2) % len(pts)
		dx, dy := pts[j]-pts[i], pts[j+1]-pts[i+1]
		l := hypot(dx, dy)
		edges = append(edges, edge{pts[i], pts[i+1], sign * dy / l, -sign * dx / l})
		s.x0, s.y0, s.x1, s.y1 = min(s.x0, pts[i]), min(s.y0, pts[i+1]), max(s.x1, pts[i]), max(s.y1, pts[i+1])
	}
	s.d = func(x, y float64) float64 {
		d := math.Inf(-1)
		for _, e := range edges {
			d = max(d, (x-e.x)*e.nx+(y-e.y)*e.ny)
		}
		return d
	}
	return s
}

// ring is a circle's outline, w thick each side.
func ring(cx, cy, r, w float64) shape {
	return shape{func(x, y float64) float64 { return math.Abs(hypot(x-cx, y-cy)-r) - w },
		cx - r - w, cy - r - w, cx + r + w, cy + r + w}
}

func union(parts ...shape) shape {
	s := parts[0]
	for _, p := range parts[1:] {
		a, b := s.d, p.d
		s = shape{func(x, y float64) float64 { return min(a(x, y), b(x, y)) },
			min(s.x0, p.x0), min(s.y0, p.y0), max(s.x1, p.x1), max(s.y1, p.y1)}
	}
	return s
}

// clip is what a and b share.
func clip(a, b shape) shape {
	return shape{func(x, y float64) float64 { return max(a.d(x, y), b.d(x, y)) },
		max(a.x0, b.x0), max(a.y0, b.y0), min(a.x1, b.x1), min(a.y1, b.y1)}
}

// cut is a without b.
func cut(a, b shape) shape {
	return shape{func(x, y float64) float64 { return max(a.d(x, y), -b.d(x, y)) }, a.x0, a.y0, a.x1, a.y1}
}

// rot turns s by deg degrees (clockwise on screen) about cx, cy.
func rot(s shape, deg, cx, cy float64) shape {
	sin, cos := math.Sincos(deg * math.Pi / 180)
	out := shape{d: func(x, y float64) float64 {
		dx, dy := x-cx, y-cy
		return s.d(cx+dx*cos+dy*sin, cy-dx*sin+dy*cos)
	}, x0: math.Inf(1), y0: math.Inf(1), x1: math.Inf(-1), y1: math.Inf(-1)}
	for _, c := range [][2]float64{{s.x0, s.y0}, {s.x1, s.y0}, {s.x0, s.y1}, {s.x1, s.y1}} {
		dx, dy := c[0]-cx, c[1]-cy
		x, y := cx+dx*cos-dy*sin, cy+dx*sin+dy*cos
		out.x0, out.y0, out.x1, out.y1 = min(out.x0, x), min(out.y0, y), max(out.x1, x), max(out.y1, y)
	}
	return out
}

// line is a stroke from x0, y0 to x1, y1, w wide.
func line(x0, y0, x1, y1, w float64) shape { return capsule(x0, y0, x1, y1, w/2) }

// ellipseRing is an ellipse's outline, w thick.
func ellipseRing(cx, cy, rx, ry, w float64) shape {
	return cut(ellipse(cx, cy, rx+w/2, ry+w/2), ellipse(cx, cy, rx-w/2, ry-w/2))
}

// arc is the part of a circle's outline between angles a0 and a1 degrees
// (0 to the right, clockwise on screen), w thick.
func arc(cx, cy, r, a0, a1, w float64) shape {
	mid := (a0 + a1) / 2 * math.Pi / 180
	half := (a1 - a0) / 2 * math.Pi / 180
	whole := ring(cx, cy, r, w/2)
	return shape{func(x, y float64) float64 {
		ang := math.Atan2(y-cy, x-cx) - mid
		ang = math.Mod(ang+3*math.Pi, 2*math.Pi) - math.Pi
		if math.Abs(ang) <= half {
			return whole.d(x, y)
		}
		// Past the ends: the distance to the nearer end cap.
		e0, e1 := mid-half, mid+half
		d0 := hypot(x-cx-r*math.Cos(e0), y-cy-r*math.Sin(e0))
		d1 := hypot(x-cx-r*math.Cos(e1), y-cy-r*math.Sin(e1))
		return min(d0, d1) - w/2
	}, whole.x0, whole.y0, whole.x1, whole.y1}
}

// drop is a water drop with its round bottom at cx, cy.
func drop(cx, cy, r float64) shape {
	return union(circle(cx, cy, r), poly(cx-r*0.92, cy-r*0.4, cx, cy-r*2.4, cx+r*0.92, cy-r*0.4))
}

// upper is the part of s above y; lower the part below.
func upper(s shape, y float64) shape { return clip(s, rect(s.x0-1, s.y0-1, s.x1+1, y, 0)) }
func lower(s shape, y float64) shape { return clip(s, rect(s.x0-1, y, s.x1+1, s.y1+1, 0)) }
