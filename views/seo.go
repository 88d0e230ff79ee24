package views

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// What a page tells search engines and link previews: its canonical URL,
// whether it may be indexed, its Open Graph and Twitter card tags, and its
// structured data (JSON-LD). The layout writes them into <head>.

// Social is a page's Open Graph and Twitter card tags; the zero value
// writes none.
type Social struct {
	Type        string // og:type: "website", "product" or "article"
	Title       string
	Description string
	URL         string // absolute
	// Image is an absolute picture URL, the widest stored (1280 px for an
	// uploaded picture at least that wide), with its size.
	Image               string
	ImageWidth, ImageHt int
	// PriceCents is an item's price (product:price:amount), 0 for none.
	PriceCents int64
}

// LD is one JSON-LD document, encoded by JSONLD: safe inside a script
// element whatever its fields hold.
type LD string

// JSONLD encodes a schema.org document for a <script
// type="application/ld+json"> element. encoding/json escapes <, > and &
// (so no field can write "</script>" or "<!--") and U+2028 and U+2029
// (which old JavaScript parsers read as line ends).
func JSONLD(doc any) LD {
	b, err := json.Marshal(doc)
	if err != nil {
		return "" // only maps and slices of strings and numbers: never
	}
	return LD(b)
}

// scriptLD is the element's whole markup.
func scriptLD(ld LD) string {
	return `<script type="application/ld+json">` + string(ld) + `</script>`
}

// Crumb is one step of a breadcrumb trail: its name and absolute URL.
type Crumb struct{ Name, URL string }

// BreadcrumbLD is a schema.org BreadcrumbList of the trail.
func BreadcrumbLD(trail []Crumb) LD {
	items := make([]map[string]any, len(trail))
	for i, c := range trail {
		items[i] = map[string]any{"@type": "ListItem", "position": i + 1, "name": c.Name, "item": c.URL}
	}
	return JSONLD(map[string]any{"@context": "https://schema.org", "@type": "BreadcrumbList", "itemListElement": items})
}

// ProductOffer is one variant (or the item itself) as an Offer.
type ProductOffer struct {
	SKU        string
	Name       string // the variant's options, "" for the item
	PriceCents int64
	InStock    bool
	URL        string // absolute
}

// ProductReview is one review as schema.org Review.
type ProductReview struct {
	Author string
	Rating int
	Body   string
	Date   string // YYYY-MM-DD
}

// ProductFacts are what the Product document says of an item.
type ProductFacts struct {
	Name, SKU, Description, URL, Category string
	Images                                []string // absolute
	Offers                                []ProductOffer
	RatingAverage                         float64
	RatingCount                           int
	Reviews                               []ProductReview
}

// ProductLD is a schema.org Product: one Offer per variant (or one for
// the item), its rating and reviews when it has some.
func ProductLD(shop Shop, p ProductFacts) LD {
	doc := map[string]any{"@context": "https://schema.org", "@type": "Product", "name": p.Name, "sku": p.SKU,
		"url": p.URL, "description": p.Description, "category": p.Category,
		"brand": map[string]any{"@type": "Brand", "name": shop.Name}}
	if len(p.Images) > 0 {
		doc["image"] = p.Images
	}
	offers := make([]map[string]any, len(p.Offers))
	for i, o := range p.Offers {
		avail := "https://schema.org/OutOfStock"
		if o.InStock {
			avail = "https://schema.org/InStock"
		}
		offer := map[string]any{"@type": "Offer", "sku": o.SKU, "price": shop.Currency.Decimal(o.PriceCents), "priceCurrency": shop.Currency.Code,
			"availability": avail, "url": o.URL, "itemCondition": "https://schema.org/NewCondition"}
		if o.Name != "" {
			offer["name"] = o.Name
		}
		offers[i] = offer
	}
	doc["offers"] = offers
	if p.RatingCount > 0 {
		doc["aggregateRating"] = map[string]any{"@type": "AggregateRating",
			"ratingValue": strconv.FormatFloat(p.RatingAverage, 'f', 1, 64), "reviewCount": p.RatingCount,
			"bestRating": 5, "worstRating": 1}
	}
	if len(p.Reviews) > 0 {
		rs := make([]map[string]any, len(p.Reviews))
		for i, r := range p.Reviews {
			rs[i] = map[string]any{"@type": "Review", "author": map[string]any{"@type": "Person", "name": r.Author},
				"reviewRating": map[string]any{"@type": "Rating", "ratingValue": r.Rating, "bestRating": 5, "worstRating": 1},
				"reviewBody":   r.Body, "datePublished": r.Date}
		}
		doc["review"] = rs
	}
	return JSONLD(doc)
}

// ArticleFacts are what the Article document says of a board post.
type ArticleFacts struct {
	Headline, Author, URL, Published, Modified, AuthorURL string
	ShopURL                                               string // the publisher's
}

// ArticleLD is a schema.org Article for a board post.
func ArticleLD(shop Shop, a ArticleFacts) LD {
	doc := map[string]any{"@context": "https://schema.org", "@type": "Article", "headline": a.Headline,
		"author":        map[string]any{"@type": "Person", "name": a.Author, "url": a.AuthorURL},
		"datePublished": a.Published, "mainEntityOfPage": a.URL, "url": a.URL,
		"publisher": map[string]any{"@type": "Organization", "name": shop.Name, "url": a.ShopURL + "/"}}
	if a.Modified != "" {
		doc["dateModified"] = a.Modified
	}
	return JSONLD(doc)
}

// HomeLD are the home page's documents: the shop as an Organization, and
// the site as a WebSite whose search a search engine may offer
// (SearchAction on /items?q=).
func HomeLD(shop Shop, shopURL string) []LD {
	return []LD{
		JSONLD(map[string]any{"@context": "https://schema.org", "@type": "Organization", "name": shop.Name,
			"url": shopURL + "/", "logo": shopURL + "/favicon.ico"}),
		JSONLD(map[string]any{"@context": "https://schema.org", "@type": "WebSite", "name": shop.Name, "url": shopURL + "/",
			"potentialAction": map[string]any{"@type": "SearchAction",
				"target":      map[string]any{"@type": "EntryPoint", "urlTemplate": shopURL + "/items?q={search_term_string}"},
				"query-input": "required name=search_term_string"}}),
	}
}

// Decimal is an amount in the currency's minor unit as a plain decimal
// number, such as "12.99" (or "1235" for yen): the form structured data
// and Open Graph prices take.
func (c Currency) Decimal(minor int64) string {
	sign := ""
	if minor < 0 {
		sign, minor = "-", -minor
	}
	if c.Digits <= 0 {
		return sign + strconv.FormatInt(minor, 10)
	}
	unit := int64(1)
	for range c.Digits {
		unit *= 10
	}
	frac := strings.Repeat("0", c.Digits) + strconv.FormatInt(minor%unit, 10)
	return sign + strconv.FormatInt(minor/unit, 10) + "." + frac[len(frac)-c.Digits:]
}

// metaDescriptionLen is about what search engines show of a description.
const metaDescriptionLen = 155

// MetaDescription is text as a page's meta description: white space
// runs as one space, at most about 155 characters, cut at a word with an
// ellipsis.
func MetaDescription(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= metaDescriptionLen {
		return text
	}
	cut, n, end := 0, 0, len(text)
	for i, r := range text {
		if n == metaDescriptionLen-1 {
			end = i
			break
		}
		if r == ' ' {
			cut = i
		}
		n++
	}
	if cut == 0 { // one long word
		cut = end
	}
	return strings.TrimRight(text[:cut], " ,.;:-") + "…"
}
