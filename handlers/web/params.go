package web

import (
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/store/platform"
	"storefront/views"
)

// Request parameters shared by several areas: ids, page numbers and
// pagers, posted forms and the page a form goes back to, and the checks
// of typed text more than one form makes.

// MaxPage is the highest page number any listing answers; beyond it a
// listing is simply empty, so a huge number costs no database scan.
const MaxPage = 1_000_000

// PathID reads a number in a path: decimal digits without a sign or
// leading zeros, 1 or more, so each thing has one address (`/items/+5`
// and `/items/005` are not `/items/5`: they name nothing).
func PathID(s string) (int64, bool) {
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

// SluggedID reads a readable path segment, "<id>-<slug>" or the bare
// "<id>": the id as PathID reads it and the words after it ("" for none).
// The words never choose what is shown; a page whose words are not its
// current slug moves to the right URL.
func SluggedID(s string) (id int64, slug string, ok bool) {
	if i := strings.IndexByte(s, '-'); i >= 0 {
		s, slug = s[:i], s[i+1:]
		if slug == "" {
			return 0, "", false
		}
	}
	id, ok = PathID(s)
	return id, slug, ok
}

// ItemIDParam reads :id, "<id>" or "<id>-<slug>"; anything but a positive
// number names no item.
func ItemIDParam(c echo.Context) (int64, error) {
	id, _, err := ItemRef(c)
	return id, err
}

// ItemRef reads :id of an item page: the id and the slug the URL gave.
func ItemRef(c echo.Context) (int64, string, error) {
	id, slug, ok := SluggedID(c.Param("id"))
	if !ok {
		return 0, "", NotFound("There is no item with that number.")
	}
	return id, slug, nil
}

// ArticleIDParam reads :id, "<id>" or "<id>-<slug>"; anything but a
// positive number names no article.
func ArticleIDParam(c echo.Context) (int64, error) {
	id, _, err := ArticleRef(c)
	return id, err
}

// ArticleRef reads :id of an article page: the id and the slug the URL
// gave.
func ArticleRef(c echo.Context) (int64, string, error) {
	id, slug, ok := SluggedID(c.Param("id"))
	if !ok {
		return 0, "", NotFound("There is no article with that number.")
	}
	return id, slug, nil
}

// MovedTo answers 301 Moved Permanently to path with the request's query
// string kept (a chosen variant, campaign tags): the way a page asked for
// by an old or missing slug reaches its current URL. A flash message the
// request brought is for the page at the end of the move, so it is left
// for that page (a form's redirect may name the bare id).
func (k *Kit) MovedTo(c echo.Context, path string) error {
	if s := SessionOf(c); s != nil && s.Flash != "" {
		k.SetFlash(c, s.Flash)
	}
	if q := c.Request().URL.RawQuery; q != "" {
		path += "?" + q
	}
	return c.Redirect(http.StatusMovedPermanently, path)
}

// OrderIDParam reads :id; anything but a positive number names no order.
func OrderIDParam(c echo.Context) (int64, error) {
	id, ok := PathID(c.Param("id"))
	if !ok {
		return 0, NotFound("There is no order with that number.")
	}
	return id, nil
}

// ArticleNotFound gives a missing article its own message.
func ArticleNotFound(err error) error {
	if errors.Is(err, platform.ErrNotFound) {
		return NotFound("There is no article with that number.")
	}
	return err
}

// PageParam reads ?page=: absent is 1; 0, negative or not a number is a 400.
func PageParam(c echo.Context) (int, error) {
	v := c.QueryParam("page")
	if v == "" {
		return 1, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 1 {
		return 0, BadRequest("The page number must be a whole number of 1 or more.")
	}
	if n > MaxPage {
		n = MaxPage + 1 // far past the end: an empty page
	}
	return int(n), nil
}

// PagerFor builds a listing's pager. A listing that fits on one page gets
// none (Pages 1); a page past the end says so and links back to the last.
func PagerFor(page, perPage, total int, urlFor func(int) string) views.Pager {
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

// PostForm parses the request body (urlencoded or multipart) and returns
// only its fields, never the query string's.
func PostForm(c echo.Context) (map[string][]string, error) {
	r := c.Request()
	var err error
	if strings.HasPrefix(r.Header.Get(echo.HeaderContentType), echo.MIMEMultipartForm) {
		err = r.ParseMultipartForm(64 << 10)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		return nil, BadRequest("The form could not be read.")
	}
	return r.PostForm, nil
}

// ReturnPath is where a form goes back to: its next field, else the
// Referer when it is a page of this site, else fallback.
func ReturnPath(c echo.Context, fallback string) string {
	if p := LocalPath(c.FormValue("next"), ""); p != "" {
		return p
	}
	ref, err := url.Parse(c.Request().Referer())
	if err == nil && ref.Host == c.Request().Host && (ref.Scheme == "http" || ref.Scheme == "https") {
		return LocalPath(ref.RequestURI(), fallback)
	}
	return fallback
}

// LocalPath returns p if it is a path on this site, else fallback: it
// stops open redirects through ?next= and Referer. Browsers clean a
// Location up before following it (they drop tabs, newlines and leading
// control characters and read a backslash as a slash), so "/\t/evil" or
// "/\\evil" would become "//evil", another site: any control character
// or backslash is refused outright, and what is left must be a rooted path
// that does not start with two slashes.
func LocalPath(p, fallback string) string {
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

// usernameRE is what a username may be.
var usernameRE = regexp.MustCompile(`^[A-Za-z0-9_]{3,32}$`)

// ValidUsername reports whether name can be a username: in the register
// form and in /users/:name.
func ValidUsername(name string) bool { return usernameRE.MatchString(name) }

// Printable reports whether s can be shown on one line as typed: valid
// UTF-8 without control characters and without the bidirectional
// overrides and isolates (U+202A-U+202E, U+2066-U+2069), which make a
// name or an address read differently from what it holds (the marks
// U+200E and U+200F that right-to-left text needs stay allowed).
func Printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsControl(r) || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
	})
}

// MaxQueryLen is the longest search, in characters (the catalog's and the
// admin's item search).
const MaxQueryLen = 200

// MaxTextLen is the longest comment or review, in characters.
const MaxTextLen = 2000

// CheckText says what is wrong with the text of a comment or a review
// (what names which, in the messages), or "".
func CheckText(body, what string) string {
	n := utf8.RuneCountInString(body)
	switch {
	case n == 0:
		return "Write something first."
	case n > MaxTextLen:
		return strings.ToUpper(what[:1]) + what[1:] + "s can be at most 2,000 characters long."
	case !utf8.ValidString(body) || strings.ContainsFunc(body, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }):
		return "The " + what + " contains characters we cannot show."
	}
	return ""
}
