package views

import (
	"net/url"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Readable URLs. An item's page is /items/<id>-<slug> and an article's
// /articles/<id>-<slug>, the slug made from the current name: the id
// finds the page (and keys the page cache), the slug is for people and
// search engines. A page asked for by its bare id or an old slug answers
// 301 to the current URL. Forms post to the bare id (ItemBase,
// ArticleBase): an action needs no words.

// maxSlugBytes bounds a slug; a longer name is cut at a word.
const maxSlugBytes = 80

// Slug is the URL words of a name: ASCII lower case letters and digits,
// accented Latin letters without their accents, runs of anything else as
// one hyphen, at most maxSlugBytes cut at a hyphen. The same name always
// gives the same slug; a name with no letter or digit gives "".
func Slug(name string) string {
	var buf [maxSlugBytes]byte
	return string(appendSlug(buf[:0], name))
}

// SlugMatches reports whether slug is name's slug, without allocating:
// the item page's cached hit checks it on every request.
func SlugMatches(name, slug string) bool {
	var buf [maxSlugBytes]byte
	return string(appendSlug(buf[:0], name)) == slug
}

func appendSlug(dst []byte, name string) []byte {
	dash := false
	for _, r := range name {
		b := foldASCII(r)
		if b == 0 {
			dash = len(dst) > 0
			continue
		}
		if dash {
			if len(dst)+2 > maxSlugBytes {
				break
			}
			dst = append(dst, '-')
			dash = false
		}
		if len(dst)+1 > maxSlugBytes {
			// Cut at the last word that fits whole.
			if i := lastDash(dst); i > 0 {
				dst = dst[:i]
			}
			break
		}
		dst = append(dst, b)
	}
	return dst
}

func lastDash(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '-' {
			return i
		}
	}
	return -1
}

// foldASCII is r as a lower-case ASCII letter or digit, or 0 for a
// separator.
func foldASCII(r rune) byte {
	switch {
	case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
		return byte(r)
	case r >= 'A' && r <= 'Z':
		return byte(r) + 'a' - 'A'
	case r < utf8.RuneSelf:
		return 0
	}
	return unaccented[unicode.ToLower(r)]
}

// unaccented maps accented Latin letters (lower case) to the ASCII
// letter a URL writes them as.
var unaccented = func() map[rune]byte {
	m := map[rune]byte{}
	for _, group := range []string{"aàáâãäåāăą", "cçćč", "dďđ", "eèéêëēėęě", "iìíîïīį", "lł", "nñńň", "oòóôõöøōő",
		"rŕř", "sśšş", "tť", "uùúûüūůűų", "yýÿ", "zźżž"} {
		plain, rest := group[0], group[1:]
		for _, r := range rest {
			m[r] = plain
		}
	}
	return m
}()

// ItemURL is an item page's path: /items/<id>-<slug of its name>.
func ItemURL(id int64, name string) string {
	return withSlug("/items/", id, name)
}

// ItemBase is the bare path of an item, which its forms post under
// (/items/<id>/like); asked for as a page, it moves to ItemURL.
func ItemBase(id int64) string { return "/items/" + strconv.FormatInt(id, 10) }

// ArticleURL is an article's page: /articles/<id>-<slug of its title>.
func ArticleURL(id int64, title string) string {
	return withSlug("/articles/", id, title)
}

// ArticleBase is the bare path of an article, which its forms post under
// (/articles/<id>/vote).
func ArticleBase(id int64) string { return "/articles/" + strconv.FormatInt(id, 10) }

func withSlug(prefix string, id int64, name string) string {
	var buf [maxSlugBytes]byte
	slug := appendSlug(buf[:0], name)
	out := make([]byte, 0, len(prefix)+21+len(slug))
	out = append(out, prefix...)
	out = strconv.AppendInt(out, id, 10)
	if len(slug) > 0 {
		out = append(out, '-')
		out = append(out, slug...)
	}
	return string(out)
}

// CollectionURL is a collection's page.
func CollectionURL(slug string) string { return "/collections/" + slug }

// CategoryPath is a category's page in the catalog tree.
func CategoryPath(path string) string { return "/c/" + path }

// CategoryURL is a category's listing, as a parameter of the catalog.
func CategoryURL(name string) string { return "/items?category=" + url.QueryEscape(name) }
