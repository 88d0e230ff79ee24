package main

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shopper is a browser without JavaScript: it keeps cookies (per host, and
// every instance is 127.0.0.1, so one shopper can move between instances
// as behind a load balancer) and does not follow redirects.
type shopper struct {
	t   testing.TB
	hc  *http.Client
	jar *cookiejar.Jar
}

func newShopper(t testing.TB) *shopper {
	jar, _ := cookiejar.New(nil)
	return &shopper{t: t, jar: jar, hc: &http.Client{
		Jar:           jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       30 * time.Second,
	}}
}

// reply is a finished request.
type reply struct {
	Status int
	Header http.Header
	Body   string
}

func (s *shopper) do(req *http.Request) reply {
	s.t.Helper()
	res, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{Status: res.StatusCode, Header: res.Header, Body: string(b)}
}

func (s *shopper) get(base, path string, headers ...string) reply {
	s.t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return s.do(req)
}

// post sends a same-origin form, as a browser would.
func (s *shopper) post(base, path string, form url.Values, headers ...string) reply {
	s.t.Helper()
	req, _ := http.NewRequest("POST", base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return s.do(req)
}

// mustPost posts and fails the test unless the answer has status want.
func (s *shopper) mustPost(base, path string, form url.Values, want int) reply {
	s.t.Helper()
	r := s.post(base, path, form)
	if r.Status != want {
		s.t.Fatalf("POST %s: status %d, want %d: %.400s", path, r.Status, want, r.Body)
	}
	return r
}

// mustGet gets and fails the test unless the answer has status want.
func (s *shopper) mustGet(base, path string, want int) reply {
	s.t.Helper()
	r := s.get(base, path)
	if r.Status != want {
		s.t.Fatalf("GET %s: status %d, want %d: %.400s", path, r.Status, want, r.Body)
	}
	return r
}

// attrsOf returns attr of every element whose data-testid is id, in order.
func attrsOf(body, id, attr string) []string {
	re := regexp.MustCompile(`<[^>]*data-testid="` + regexp.QuoteMeta(id) + `"[^>]*>`)
	var out []string
	for _, tag := range re.FindAllString(body, -1) {
		m := regexp.MustCompile(`\s` + regexp.QuoteMeta(attr) + `="([^"]*)"`).FindStringSubmatch(tag)
		if m != nil {
			out = append(out, m[1])
		}
	}
	return out
}

// textOf returns the text of the first element whose data-testid is id.
func textOf(body, id string) string {
	re := regexp.MustCompile(`data-testid="` + regexp.QuoteMeta(id) + `"[^>]*>([^<]*)<`)
	if m := re.FindStringSubmatch(body); m != nil {
		return strings.TrimSpace(m[1])
	}
	return ""
}

// listIDs returns data-item-id of the children of the list with testid
// (nil when the page has no such list).
func listIDs(body, id string) []string {
	i := strings.Index(body, `data-testid="`+id+`"`)
	if i < 0 {
		return nil
	}
	rest := body[i:]
	if end := strings.Index(rest, "</ol>"); end >= 0 {
		rest = rest[:end]
	}
	var out []string
	for _, m := range regexp.MustCompile(`<li[^>]*data-item-id="(\d+)"`).FindAllStringSubmatch(rest, -1) {
		out = append(out, m[1])
	}
	return out
}
