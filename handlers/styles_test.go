package handlers_test

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"storefront/store/orders"
)

// stylesheet fetches the app's CSS as a page links it.
func (a *app) stylesheet(t *testing.T) string {
	t.Helper()
	page := a.client().Get("/").Body
	href := regexp.MustCompile(`<link rel="stylesheet" href="(/static/css/[^"]+)"`).FindStringSubmatch(page)
	if href == nil {
		t.Fatal("no stylesheet link")
	}
	return a.client().MustGet(href[1], 200).Body
}

// cssRule returns the declarations of the rule whose selector list is
// exactly sel ("" if none), with var(--x) resolved from :root.
func cssRule(css, sel string) map[string]string {
	vars := map[string]string{}
	if m := regexp.MustCompile(`(?s):root\s*\{(.*?)\}`).FindStringSubmatch(css); m != nil {
		for _, d := range strings.Split(m[1], ";") {
			if k, v, ok := strings.Cut(d, ":"); ok {
				vars[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
	}
	m := regexp.MustCompile(`(?s)(?:^|\}|\*/)\s*` + regexp.QuoteMeta(sel) + `\s*\{([^}]*)\}`).FindStringSubmatch(css)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	for _, d := range strings.Split(m[1], ";") {
		k, v, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if r := regexp.MustCompile(`^var\((--[a-z-]+)\)$`).FindStringSubmatch(v); r != nil {
			v = vars[r[1]]
		}
		out[strings.TrimSpace(k)] = v
	}
	return out
}

// luminance is a #rgb or #rrggbb colour's relative luminance (WCAG 2).
func luminance(t *testing.T, hex string) float64 {
	t.Helper()
	h := strings.TrimPrefix(hex, "#")
	if len(h) == 3 {
		h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
	}
	if len(h) != 6 {
		t.Fatalf("not a hex colour: %q", hex)
	}
	var l [3]float64
	for i := range l {
		n, err := strconv.ParseUint(h[2*i:2*i+2], 16, 8)
		if err != nil {
			t.Fatalf("not a hex colour: %q", hex)
		}
		c := float64(n) / 255
		if c <= 0.03928 {
			l[i] = c / 12.92
		} else {
			l[i] = math.Pow((c+0.055)/1.055, 2.4)
		}
	}
	return 0.2126*l[0] + 0.7152*l[1] + 0.0722*l[2]
}

// contrast is the WCAG contrast ratio of two colours.
func contrast(t *testing.T, a, b string) float64 {
	la, lb := luminance(t, a), luminance(t, b)
	return (math.Max(la, lb) + 0.05) / (math.Min(la, lb) + 0.05)
}

// TestOrderStatusPills: every order status has a pill of its own colours,
// no two alike (Delivered and Cancelled were one amber pill), each with
// text at WCAG AA contrast (4.5:1) on its background.
func TestOrderStatusPills(t *testing.T) {
	a := newApp(t, nil, nil)
	css := a.stylesheet(t)
	seen := map[string]string{}
	for _, st := range append(append([]string{orders.OrderAwaitingPayment}, orders.OrderPath...), orders.OrderCancelled) {
		rule := cssRule(css, ".status-"+st)
		bg, fg := rule["background"], rule["color"]
		if bg == "" || fg == "" {
			t.Errorf("status %s has no pill colours of its own: %v", st, rule)
			continue
		}
		if c := contrast(t, bg, fg); c < 4.5 {
			t.Errorf("status %s: %s on %s has contrast %.2f, want 4.5", st, fg, bg, c)
		}
		key := fmt.Sprint(bg, "/", fg)
		if other, ok := seen[key]; ok {
			t.Errorf("statuses %s and %s share the pill %s", other, st, key)
		}
		seen[key] = st
	}
}

// TestDidYouMeanIsASuggestion: the search's "did you mean" offer looks
// like help, not like an error: not the alert style, a style of its own in
// calm colours at AA contrast.
func TestDidYouMeanIsASuggestion(t *testing.T) {
	a := newApp(t, nil, nil)
	body := a.client().MustGet("/items?q=skilet", 200).Body
	tag := regexp.MustCompile(`<[^>]*data-testid="did-you-mean"[^>]*>`).FindString(body)
	if tag == "" {
		t.Fatal("no did-you-mean")
	}
	if strings.Contains(tag, "alert") || strings.Contains(tag, "error") || !strings.Contains(tag, `class="suggestion"`) {
		t.Errorf("did-you-mean is styled %s, want the suggestion style", tag)
	}
	css := a.stylesheet(t)
	rule := cssRule(css, ".suggestion")
	danger := cssRule(css, ".field-error")["color"]
	if rule == nil || rule["color"] == "" || rule["background"] == "" || rule["color"] == danger {
		t.Fatalf("the suggestion style %v", rule)
	}
	if c := contrast(t, rule["background"], rule["color"]); c < 4.5 {
		t.Errorf("suggestion contrast %.2f", c)
	}
}
