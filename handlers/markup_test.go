package handlers_test

import (
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
)

// markupProblems checks a rendered page the way an HTML validator's
// attribute rules do: each start tag names an attribute at most once, and
// every name is an attribute HTML (or SVG, inside <svg>) knows, aria-* or
// data-*. A stray word such as `else` in a tag, left by a template's
// control flow, is an unknown attribute. It returns one line per problem.
func markupProblems(body string) []string {
	var out []string
	inSVG := 0
	for i := 0; i < len(body); {
		j := strings.IndexByte(body[i:], '<')
		if j < 0 {
			break
		}
		i += j
		rest := body[i:]
		switch {
		case strings.HasPrefix(rest, "<!--"):
			k := strings.Index(rest, "-->")
			if k < 0 {
				return append(out, "an unclosed comment")
			}
			i += k + 3
			continue
		case strings.HasPrefix(rest, "</svg"):
			inSVG--
			fallthrough
		case strings.HasPrefix(rest, "<!"), strings.HasPrefix(rest, "</"):
			k := strings.IndexByte(rest, '>')
			if k < 0 {
				return append(out, "an unclosed tag at the end")
			}
			i += k + 1
			continue
		}
		n := 1
		for n < len(rest) && isTagNameByte(rest[n]) {
			n++
		}
		if n == 1 { // a "<" in text
			i++
			continue
		}
		tag := strings.ToLower(rest[1:n])
		if tag == "svg" {
			inSVG++
		}
		attrs, end, ok := scanAttributes(rest, n)
		if !ok {
			return append(out, "<"+tag+"> is never closed")
		}
		seen := map[string]bool{}
		for _, name := range attrs {
			if seen[name] {
				out = append(out, "<"+tag+"> has "+name+" twice")
			}
			seen[name] = true
			if !knownAttribute(name, inSVG > 0) {
				out = append(out, "<"+tag+"> has an unknown attribute "+strconvQuote(name))
			}
		}
		i += end
		if tag == "script" || tag == "style" { // raw text up to its end tag
			k := strings.Index(body[i:], "</"+tag)
			if k < 0 {
				return append(out, "<"+tag+"> is never closed")
			}
			i += k
		}
	}
	return out
}

func strconvQuote(s string) string { return `"` + s + `"` }

func isTagNameByte(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '-'
}

func isSpaceByte(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\f' }

// scanAttributes reads the attribute names of the start tag in s from p
// (just after its name) to its ">", returning them and the offset after
// the tag; ok is false when the tag never ends.
func scanAttributes(s string, p int) (names []string, end int, ok bool) {
	for {
		for p < len(s) && isSpaceByte(s[p]) {
			p++
		}
		switch {
		case p >= len(s):
			return names, p, false
		case s[p] == '>':
			return names, p + 1, true
		case s[p] == '/':
			p++
			continue
		}
		start := p
		for p < len(s) && !isSpaceByte(s[p]) && s[p] != '=' && s[p] != '>' && s[p] != '/' {
			p++
		}
		names = append(names, strings.ToLower(s[start:p]))
		q := p
		for q < len(s) && isSpaceByte(s[q]) {
			q++
		}
		if q >= len(s) || s[q] != '=' {
			continue // a value-less attribute
		}
		p = q + 1
		for p < len(s) && isSpaceByte(s[p]) {
			p++
		}
		if p < len(s) && (s[p] == '"' || s[p] == '\'') {
			k := strings.IndexByte(s[p+1:], s[p])
			if k < 0 {
				return names, len(s), false
			}
			p += k + 2
			continue
		}
		for p < len(s) && !isSpaceByte(s[p]) && s[p] != '>' {
			p++
		}
	}
}

// htmlAttributes are the attribute names HTML defines that pages may use
// (global ones and those of the elements the shop renders), and RDFa's
// property, which Open Graph's <meta> tags are written with.
var htmlAttributes = setOf(`accept accept-charset accesskey action allow alt async autocapitalize
	autocomplete autofocus charset checked cite class cols colspan content contenteditable crossorigin
	datetime decoding default defer dir disabled download draggable enctype enterkeyhint fetchpriority
	for form formaction formmethod formnovalidate headers height hidden high href hreflang http-equiv id
	inert inputmode integrity is itemprop itemscope itemtype label lang list loading low max maxlength
	media method min minlength multiple name nonce novalidate open optimum pattern placeholder popover
	popovertarget poster preload property readonly referrerpolicy rel required reversed role rows rowspan
	sandbox scope selected shape size sizes slot span spellcheck src srcdoc srclang srcset start step
	style tabindex target title translate type usemap value width wrap`)

// svgAttributes are the presentation and geometry attributes of the
// charts' and icons' SVG.
var svgAttributes = setOf(`class id role focusable viewbox xmlns width height fill fill-opacity
	stroke stroke-width stroke-linecap stroke-linejoin stroke-dasharray stroke-opacity opacity d points
	x y x1 y1 x2 y2 cx cy r rx ry dx dy transform text-anchor dominant-baseline font-size font-weight
	preserveaspectratio vector-effect style tabindex`)

func setOf(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

func knownAttribute(name string, svg bool) bool {
	if strings.HasPrefix(name, "data-") || strings.HasPrefix(name, "aria-") {
		return len(name) > 5
	}
	if svg {
		return svgAttributes[name]
	}
	return htmlAttributes[name]
}

// TestMarkupProblemsFindsTemplateSlips: the checker itself finds what it
// is for, and passes well-formed markup.
func TestMarkupProblemsFindsTemplateSlips(t *testing.T) {
	for _, tc := range []struct {
		html string
		want string
	}{
		{`<input id="a" aria-describedby="x" else aria-invalid="false">`, `<input> has an unknown attribute "else"`},
		{`<input aria-describedby="a-error" aria-describedby="a-hint">`, `<input> has aria-describedby twice`},
		{`<p class="x" class='y'>t</p>`, `<p> has class twice`},
		{`<a href=/x CLASS=tap class="z">`, `<a> has class twice`},
		{`<div if>`, `<div> has an unknown attribute "if"`},
		{`<svg viewBox="0 0 1 1"><path d="M0"/></svg><p d="1">`, `<p> has an unknown attribute "d"`},
	} {
		if got := strings.Join(markupProblems(tc.html), "; "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.html, got, tc.want)
		}
	}
	ok := `<!doctype html><html lang="en"><head><script src="/a.js" defer></script><style>a<b{}</style></head>
		<body><!-- <p else> --><p>1 < 2</p><input type="checkbox" checked disabled data-x="a>b" aria-label='q'/>
		<svg viewBox="0 0 2 2" aria-hidden="true"><polyline points="0,0 1,1" fill="none"></polyline></svg></body></html>`
	if got := markupProblems(ok); len(got) != 0 {
		t.Errorf("well-formed markup: %v", got)
	}
}

// TestRenderedMarkupIsValid renders the forms (with and without errors)
// and the main pages of every area, and checks each for duplicate and
// unknown attributes.
func TestRenderedMarkupIsValid(t *testing.T) {
	a := newApp(t, nil, nil)
	pages := map[string]string{}
	guest := a.client()
	for _, p := range []string{"/", "/items", "/items?q=lamp", "/items/7", "/cart", "/checkout", "/login",
		"/register", "/articles", "/articles?sort=new"} {
		if res := guest.Get(p); res.Status == http.StatusOK {
			pages["guest "+p] = res.Body
		}
	}
	res := guest.Post("/register", url.Values{"username": {"x"}, "password": {"short"}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("register with errors: %d", res.Status)
	}
	pages["register with errors"] = res.Body
	res = guest.Post("/login", url.Values{"username": {"nobody"}, "password": {"wrong password"}})
	pages["login with errors"] = res.Body

	shopper := a.client()
	shopper.Register("mona")
	shopper.setQty("8", "2")
	for _, p := range []string{"/", "/cart", "/checkout", "/orders", "/account/password", "/notifications",
		"/articles/new", "/feed", "/users/mona"} {
		pages["shopper "+p] = shopper.MustGet(p, http.StatusOK).Body
	}
	pages["password with errors"] = shopper.Post("/account/password", url.Values{"current": {"wrong"}, "new": {"x"}}).Body
	pages["checkout with errors"] = shopper.Post("/checkout", url.Values{"name": {""}}).Body
	placed := shopper.checkout(nil)
	if placed.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", placed.Status)
	}
	order := placed.Header.Get("Location")
	pages["shopper order"] = shopper.MustGet(order, http.StatusOK).Body
	pages["shopper cancel confirmation"] = shopper.MustGet(order+"/cancel", http.StatusOK).Body
	shopper.MustPost("/items/8/reviews", url.Values{"rating": {"4"}, "body": {"Good"}}, http.StatusSeeOther)
	id := shopper.postArticle("Markup", "https://example.com/markup", "care")
	shopper.MustPost("/articles/"+itoa(id)+"/comments", url.Values{"body": {"first"}}, http.StatusSeeOther)
	pages["article with errors"] = shopper.Post("/articles", url.Values{"title": {""}, "link": {"ftp://x"}}).Body

	admin := a.client()
	admin.signInAdmin()
	uid := a.userID("mona")
	for _, p := range []string{"/admin/articles/" + itoa(id) + "/hide", "/admin/comments/" + itoa(id) + "-1/hide",
		"/admin/reviews/8-" + itoa(uid) + "/hide", "/admin/users/mona/ban"} {
		admin.MustPost(p, nil, http.StatusSeeOther)
	}
	for _, p := range []string{"/admin", "/admin/items", "/admin/items/new", "/admin/items/7", "/admin/items/8", "/admin/orders",
		"/admin/orders?q=a&status=pending", "/admin/moderation", "/articles/" + itoa(id), "/users/mona", "/items?q=skilet",
		"/admin" + order, "/admin/items/import", "/admin/sales", "/admin/sales?period=today"} {
		pages["admin "+p] = admin.MustGet(p, http.StatusOK).Body
	}
	res = admin.Post("/admin/items/7", url.Values{"name": {""}, "price": {"abc"}, "stock": {"-1"}, "category": {""}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("admin item form with errors: %d", res.Status)
	}
	pages["admin item form with errors"] = res.Body
	res = admin.Post("/admin/items/new", url.Values{"name": {""}})
	pages["admin new item with errors"] = res.Body
	pages["admin order note with errors"] = admin.Post("/admin"+order+"/notes", url.Values{"note": {""}}).Body
	pages["admin import with errors"] = admin.importCSV([]byte("sku,name\nx,y\n")).Body
	queued := admin.importCSV([]byte("sku,name,category,price,stock\nMARKUP-1,Marked lamp," + a.itemCategory(1) + ",1.00,1\n"))
	pages["admin import queued"] = admin.MustGet(queued.Header.Get("Location"), http.StatusOK).Body

	for _, must := range []string{"guest /register", "register with errors", "admin /admin/items/new",
		"admin /admin/items/7", "admin item form with errors"} {
		if pages[must] == "" {
			t.Errorf("%s was not rendered", must)
		}
	}
	names := make([]string, 0, len(pages))
	for n := range pages {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		for _, p := range markupProblems(pages[n]) {
			t.Errorf("%s: %s", n, p)
		}
	}
}
