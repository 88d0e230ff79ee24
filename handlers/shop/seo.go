package shop

import (
	"strconv"

	"storefront/handlers/web"
	"storefront/store/pagecache"
	"storefront/views"
)

// itemSEO fills in what an item page tells search engines and link
// previews: its canonical URL (the item's readable URL, for every chosen
// variant), its own description, Open Graph and Twitter tags, and its
// Product and BreadcrumbList documents. It reads only the page's facts,
// so the page cache stores it with the page.
func (h *Handler) itemSEO(chrome *views.Chrome, facts pagecache.PageData, trail []views.Crumb) {
	it, shop, merchant := facts.Item, h.cfg.ShopURL, h.web.Shop()
	page := shop + views.ItemURL(it.ID, it.Name)
	desc := views.MetaDescription(it.Description)
	if desc == "" {
		desc = it.Name + " at " + merchant.Name + "."
	}
	chrome.Canonical, chrome.Description = page, desc
	var images []string
	social := views.Social{Type: "product", Title: it.Name, Description: desc, URL: page, PriceCents: it.PriceCents}
	for i, p := range facts.Pictures {
		src, w, ht := web.SharePicture(shop, p)
		if src == "" {
			continue
		}
		images = append(images, src)
		if i == 0 {
			social.Image, social.ImageWidth, social.ImageHt = src, w, ht
		}
	}
	chrome.Social = social
	product := views.ProductFacts{Name: it.Name, SKU: it.SKU, Description: desc, URL: page, Category: it.Category,
		Images: images, RatingAverage: facts.Rating.Average, RatingCount: facts.Rating.Count}
	if len(facts.Variants) == 0 {
		product.Offers = []views.ProductOffer{{SKU: it.SKU, PriceCents: it.PriceCents, InStock: it.Stock > 0, URL: page}}
	}
	for _, v := range facts.Variants {
		sold := v.Sold(it)
		product.Offers = append(product.Offers, views.ProductOffer{SKU: sold.SKU, Name: v.Label(it.Options),
			PriceCents: sold.PriceCents, InStock: sold.Stock > 0, URL: shop + views.VariantURL(it.ID, it.Name, v.ID)})
	}
	for _, r := range facts.Reviews {
		product.Reviews = append(product.Reviews, views.ProductReview{Author: r.Username, Rating: r.Rating, Body: r.Body,
			Date: r.Updated.UTC().Format("2006-01-02")})
	}
	crumbs := []views.Crumb{{Name: "Shop", URL: "/items"}, {Name: it.Category, URL: views.CategoryURL(it.Category)}}
	if trail != nil {
		crumbs = trail
	}
	chrome.LD = []views.LD{views.ProductLD(merchant, product), views.BreadcrumbLD(append(absolute(shop, crumbs), views.Crumb{Name: it.Name, URL: page}))}
}

// absolute puts the trail's paths on the shop's URL.
func absolute(shop string, trail []views.Crumb) []views.Crumb {
	out := make([]views.Crumb, len(trail))
	for i, c := range trail {
		out[i] = views.Crumb{Name: c.Name, URL: shop + c.URL}
	}
	return out
}

// listing is what a category's listing tells search engines: its
// category's key, title and path in the tree ("" when the tree lacks it),
// the trail to it from the shop and the page number.
type listing struct {
	category, title, path string
	trail                 []views.Crumb
	page                  int
}

// listingSEO fills in what a category's listing tells link previews and
// search engines: its canonical URL (the tree's page, also for the
// catalog's ?category= listing), its Open Graph tags (the first item's
// picture) and its BreadcrumbList. The plain catalog and searches have
// neither: their canonical URL and noindex are the layout's rule.
func (h *Handler) listingSEO(chrome *views.Chrome, l listing, items []views.ItemCard) {
	if l.category == "" {
		return
	}
	shop, name := h.cfg.ShopURL, h.web.Shop().Name
	title := l.title
	if title == "" {
		title = l.category
	}
	page := shop + views.CategoryURL(l.category)
	if l.path != "" {
		page = shop + views.CategoryPath(l.path)
		chrome.Canonical = page
		if l.page > 1 {
			chrome.Canonical += "?page=" + strconv.Itoa(l.page)
		}
	}
	desc := title + " at " + name + ": hand-picked items with buyers' reviews."
	chrome.Title, chrome.Description = title, desc
	chrome.Social = views.Social{Type: "website", Title: title + " · " + name, Description: desc, URL: page}
	if len(items) > 0 && items[0].Picture.Largest != "" {
		p := items[0].Picture
		chrome.Social.Image, chrome.Social.ImageWidth, chrome.Social.ImageHt = shop+p.Largest, p.Width, p.Height
	}
	trail := l.trail
	if trail == nil {
		trail = []views.Crumb{{Name: "Shop", URL: "/items"}, {Name: title, URL: views.CategoryURL(l.category)}}
	}
	chrome.LD = []views.LD{views.BreadcrumbLD(absolute(shop, trail))}
}
