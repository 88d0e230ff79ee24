package handlers

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/views"
)

// Request parameters shared by several resources: ids, page numbers and
// pagers, posted forms and the page a form goes back to.

// maxPage is the highest page number any listing answers; beyond it a
// listing is simply empty, so a huge number costs no database scan.
const maxPage = 1_000_000

// pathID reads a number in a path: decimal digits without a sign or
// leading zeros, 1 or more, so each thing has one address (`/items/+5`
// and `/items/005` are not `/items/5`: they name nothing).
func pathID(s string) (int64, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	id, err := strconv.ParseInt(s, 10, 64)
	return id, err == nil
}

// itemIDParam reads :id; anything but a positive number names no item.
func itemIDParam(c echo.Context) (int64, error) {
	id, ok := pathID(c.Param("id"))
	if !ok {
		return 0, notFound("There is no item with that number.")
	}
	return id, nil
}

// articleIDParam reads :id; anything but a positive number names no article.
func articleIDParam(c echo.Context) (int64, error) {
	id, ok := pathID(c.Param("id"))
	if !ok {
		return 0, notFound("There is no article with that number.")
	}
	return id, nil
}

// pageParam reads ?page=: absent is 1; 0, negative or not a number is a 400.
func pageParam(c echo.Context) (int, error) {
	v := c.QueryParam("page")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return 0, badRequest("The page number must be a whole number of 1 or more.")
	}
	if n > maxPage {
		n = maxPage + 1 // far past the end: an empty page
	}
	return int(n), nil
}

// pagerFor builds a listing's pager. A listing that fits on one page gets
// none (Pages 1); a page past the end says so and links back to the last.
func pagerFor(page, perPage, total int, urlFor func(int) string) views.Pager {
	pages := max(1, (total+perPage-1)/perPage)
	p := views.Pager{Page: page, Pages: pages, Summary: "Page " + strconv.Itoa(page) + " of " + strconv.Itoa(pages)}
	if page > pages {
		p.Summary = "Past the last page"
		p.PastEnd = "There is nothing on this page: the list ends on page " + strconv.Itoa(pages) + "."
	}
	if page > 1 {
		p.PrevURL = urlFor(min(page-1, pages))
	}
	if page < pages {
		p.NextURL = urlFor(page + 1)
	}
	return p
}

// postForm parses the request body (urlencoded or multipart) and returns
// only its fields, never the query string's.
func postForm(c echo.Context) (map[string][]string, error) {
	r := c.Request()
	var err error
	if strings.HasPrefix(r.Header.Get(echo.HeaderContentType), echo.MIMEMultipartForm) {
		err = r.ParseMultipartForm(64 << 10)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		return nil, badRequest("The form could not be read.")
	}
	return r.PostForm, nil
}

// returnPath is where a form goes back to: its next field, else the
// Referer when it is a page of this site, else fallback.
func returnPath(c echo.Context, fallback string) string {
	if p := localPath(c.FormValue("next"), ""); p != "" {
		return p
	}
	ref, err := url.Parse(c.Request().Referer())
	if err == nil && ref.Host == c.Request().Host && (ref.Scheme == "http" || ref.Scheme == "https") {
		return localPath(ref.RequestURI(), fallback)
	}
	return fallback
}

// localPath returns p if it is a path on this site, else fallback: it
// stops open redirects through ?next= and Referer. Browsers clean a
// Location up before following it (they drop tabs, newlines and leading
// control characters and read a backslash as a slash), so "/\t/evil" or
// "/\\evil" would become "//evil", another site: any control character
// or backslash is refused outright, and what is left must be a rooted path
// that does not start with two slashes.
func localPath(p, fallback string) string {
	if p == "" || len(p) > 512 || !utf8.ValidString(p) || !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") {
		return fallback
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f || r == '\\' {
			return fallback
		}
	}
	return p
}

// usernameRE is what a username may be: in the register form and in /users/:name.
var usernameRE = regexp.MustCompile(`^[A-Za-z0-9_]{3,32}$`)

// printable reports whether s can be shown on one line as typed: valid
// UTF-8 without control characters and without the bidirectional
// overrides and isolates (U+202A-U+202E, U+2066-U+2069), which make a
// name or an address read differently from what it holds (the marks
// U+200E and U+200F that right-to-left text needs stay allowed).
func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
	})
}
