package handlers_test

import (
	"regexp"
	"strings"
	"testing"
)

// testids returns the data-testid values in body, in order, with the
// value of attr on each (empty when absent).
func testids(body, id, attr string) []string {
	re := regexp.MustCompile(`<[^>]*data-testid="` + regexp.QuoteMeta(id) + `"[^>]*>`)
	var out []string
	for _, tag := range re.FindAllString(body, -1) {
		out = append(out, attrOf(tag, attr))
	}
	return out
}

func attrOf(tag, attr string) string {
	if attr == "" {
		return ""
	}
	m := regexp.MustCompile(`\s` + regexp.QuoteMeta(attr) + `="([^"]*)"`).FindStringSubmatch(tag)
	if m == nil {
		return ""
	}
	return m[1]
}

// listItems returns data-item-id of the children of the list with testid.
func listItems(t *testing.T, body, id string) []string {
	t.Helper()
	i := strings.Index(body, `data-testid="`+id+`"`)
	if i < 0 {
		t.Fatalf("no %s list in page", id)
	}
	rest := body[i:]
	end := strings.Index(rest, "</ol>")
	if end < 0 {
		end = strings.Index(rest, "</ul>")
	}
	if end >= 0 {
		rest = rest[:end]
	}
	var out []string
	for _, m := range regexp.MustCompile(`<li[^>]*data-item-id="(\d+)"`).FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1])
	}
	return out
}

// textOf returns the text of the first element with the testid.
func textOf(body, id string) string {
	re := regexp.MustCompile(`data-testid="` + regexp.QuoteMeta(id) + `"[^>]*>([^<]*)<`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		return ""
	}
	return strings.TrimSpace(m[1])
}
