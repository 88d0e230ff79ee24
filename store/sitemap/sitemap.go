// Package sitemap is the shop's sitemaps for search engines: a sitemap
// index (/sitemap.xml) and its files of at most PerFile URLs each (the
// sitemaps.org limit is 50,000), for the items on sale, the categories and
// the board's articles and the merchant's information pages, every URL absolute on the shop's URL with its
// lastmod. Built from the catalog and the board on the first request, and
// kept in Redis for every instance: `sitemap:<gen>` (keys.Sitemaps) holds
// the files of one generation of the catalog, and a change a search can
// see (a new item, a rename, an archive) moves `sitemap:gen`, so the next
// request builds afresh and an archived item leaves at once. Articles come
// and go without moving it: the files live TTL at most.
//
// Tests: handlers/seo_sitemap_test.go, through the real router, checks the
// files against the sitemaps.org rules.
package sitemap

import (
	"context"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/board"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/platform"
)

// MaxURLs is the most URLs the sitemaps.org protocol allows in one file.
const MaxURLs = 50_000

// DefaultTTL is how long built sitemaps are kept.
const DefaultTTL = 10 * time.Minute

// Links makes the shop's paths (the readable URLs are the views').
type Links struct {
	Item func(id int64, name string) string
	// Category is a category's page from its path in the tree.
	Category   func(path string) string
	Article    func(id int64, title string) string
	Collection func(slug string) string
}

// Stamp is a page of the shop's own (a collection) and when it last
// changed.
type Stamp struct {
	Key     string // the collection's slug
	Changed time.Time
}

// Collections lists the collections' pages for the sitemap.
type Collections func(ctx context.Context) ([]Stamp, error)

// Options are the sitemaps' settings.
type Options struct {
	ShopURL string // absolute, no trailing slash
	PerFile int    // URLs per file, at most MaxURLs (0 takes it)
	TTL     time.Duration
	Links   Links
	// Pages are the shop's information pages (nil: none), read as the
	// files are built.
	Pages func() []Page
}

// Page is one of the shop's own pages beside its items, categories and
// articles: its path and when it last changed.
type Page struct {
	Path    string
	Updated time.Time
}

// Service builds and keeps the sitemaps.
type Service struct {
	rdb     redis.UniversalClient
	opt     Options
	catalog *catalog.Service
	board   *board.Service
	// collections is set by the wiring (UseCollections); nil lists none.
	collections Collections
}

// UseCollections lists the collections' pages too.
func (s *Service) UseCollections(c Collections) { s.collections = c }

// Changed moves the sitemaps' generation: the next read builds them
// afresh (a collection was made, renamed or removed).
func (s *Service) Changed(ctx context.Context) error {
	if err := s.rdb.Incr(ctx, keys.SitemapGen).Err(); err != nil {
		return fmt.Errorf("sitemap purge: %w", err)
	}
	return nil
}

// New returns the sitemaps over the catalog and the board.
func New(b platform.Base, opt Options, c *catalog.Service, bd *board.Service) *Service {
	if opt.PerFile <= 0 || opt.PerFile > MaxURLs {
		opt.PerFile = MaxURLs
	}
	if opt.TTL <= 0 {
		opt.TTL = DefaultTTL
	}
	opt.ShopURL = strings.TrimSuffix(opt.ShopURL, "/")
	return &Service{rdb: b.Redis, opt: opt, catalog: c, board: bd}
}

// IndexName is the index's name among the files.
const IndexName = "index"

// File returns the sitemap file name ("index", "items-1", "categories-1",
// "articles-2", ...) and whether there is one by that name.
func (s *Service) File(ctx context.Context, name string) ([]byte, bool, error) {
	gen, err := s.rdb.Get(ctx, keys.SitemapGen).Int64()
	if err != nil && err != redis.Nil {
		return nil, false, fmt.Errorf("sitemap: %w", err)
	}
	key := keys.Sitemaps(gen)
	b, err := s.rdb.HGet(ctx, key, name).Bytes()
	if err == nil {
		return b, true, nil
	}
	if err != redis.Nil {
		return nil, false, fmt.Errorf("sitemap: %w", err)
	}
	if n, err := s.rdb.Exists(ctx, key).Result(); err != nil {
		return nil, false, fmt.Errorf("sitemap: %w", err)
	} else if n > 0 {
		return nil, false, nil // built, and no file of that name
	}
	files, err := s.build(ctx)
	if err != nil {
		return nil, false, err
	}
	vals := make(map[string]any, len(files))
	for n, f := range files {
		vals[n] = f
	}
	pipe := s.rdb.TxPipeline()
	pipe.HSet(ctx, key, vals)
	pipe.Expire(ctx, key, s.opt.TTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return nil, false, fmt.Errorf("sitemap: %w", err)
	}
	f, ok := files[name]
	return f, ok, nil
}

// ItemsChanged moves the sitemaps' generation when the catalog changed in
// a way a search (and so a sitemap) can see; the wiring registers it with
// the catalog.
func (s *Service) ItemsChanged(ctx context.Context, c catalog.Change) error {
	if !c.Search {
		return nil
	}
	if err := s.rdb.Incr(ctx, keys.SitemapGen).Err(); err != nil {
		return fmt.Errorf("sitemap purge: %w", err)
	}
	return nil
}

// PagesChanged moves the sitemaps' generation when the information pages
// changed (the wiring registers it with the merchant's changes).
func (s *Service) PagesChanged(ctx context.Context) error {
	if err := s.rdb.Incr(ctx, keys.SitemapGen).Err(); err != nil {
		return fmt.Errorf("sitemap purge: %w", err)
	}
	return nil
}

// entry is one URL of a sitemap file, or one file of the index.
type entry struct {
	Loc     string `xml:"loc"`
	LastMod string `xml:"lastmod,omitempty"`
}

type urlSet struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 urlset"`
	URLs    []entry  `xml:"url"`
}

type sitemapIndex struct {
	XMLName xml.Name `xml:"http://www.sitemaps.org/schemas/sitemap/0.9 sitemapindex"`
	Maps    []entry  `xml:"sitemap"`
}

// stamped is a URL and when its page last changed.
type stamped struct {
	loc string
	mod time.Time
}

// build makes every file: the items', the categories', the articles' and
// the information pages',
// each cut into files of PerFile URLs, and the index naming them.
func (s *Service) build(ctx context.Context) (map[string][]byte, error) {
	items, err := s.catalog.Stamps(ctx)
	if err != nil {
		return nil, err
	}
	tree, err := s.catalog.Tree(ctx)
	if err != nil {
		return nil, err
	}
	var itemURLs, catURLs, collURLs []stamped
	// A category's page changes with its items and those below it, and
	// with its own rename or move; one without items on sale is left out.
	cats := map[int64]time.Time{}
	for _, it := range items {
		mod := time.Unix(it.UpdatedAt, 0)
		itemURLs = append(itemURLs, stamped{s.opt.ShopURL + s.opt.Links.Item(it.ID, it.Name), mod})
		n, ok := tree.ByName(it.Category)
		if !ok {
			continue
		}
		for _, a := range tree.Trail(n) {
			if t, seen := cats[a.ID]; !seen || mod.After(t) {
				cats[a.ID] = mod
			}
		}
	}
	for _, n := range tree.All() {
		mod, ok := cats[n.ID]
		if !ok {
			continue
		}
		if own := time.Unix(n.UpdatedAt, 0); own.After(mod) {
			mod = own
		}
		catURLs = append(catURLs, stamped{s.opt.ShopURL + s.opt.Links.Category(n.Path), mod})
	}
	if s.collections != nil {
		stamps, err := s.collections(ctx)
		if err != nil {
			return nil, err
		}
		for _, c := range stamps {
			collURLs = append(collURLs, stamped{s.opt.ShopURL + s.opt.Links.Collection(c.Key), c.Changed})
		}
	}
	articleURLs, err := s.articles(ctx)
	if err != nil {
		return nil, err
	}
	var pageURLs []stamped
	if s.opt.Pages != nil {
		for _, p := range s.opt.Pages() {
			pageURLs = append(pageURLs, stamped{s.opt.ShopURL + p.Path, p.Updated})
		}
	}
	files := map[string][]byte{}
	var index sitemapIndex
	for _, part := range []struct {
		name string
		urls []stamped
	}{{"items", itemURLs}, {"categories", catURLs}, {"collections", collURLs}, {"articles", articleURLs}, {"pages", pageURLs}} {
		for i := 0; i < len(part.urls); i += s.opt.PerFile {
			chunk := part.urls[i:min(i+s.opt.PerFile, len(part.urls))]
			name := part.name + "-" + strconv.Itoa(i/s.opt.PerFile+1)
			var set urlSet
			var newest time.Time
			for _, u := range chunk {
				set.URLs = append(set.URLs, entry{Loc: u.loc, LastMod: w3c(u.mod)})
				if u.mod.After(newest) {
					newest = u.mod
				}
			}
			b, err := encode(set)
			if err != nil {
				return nil, err
			}
			files[name] = b
			idx := entry{Loc: s.opt.ShopURL + FilePath(name)}
			if !newest.IsZero() {
				idx.LastMod = w3c(newest)
			}
			index.Maps = append(index.Maps, idx)
		}
	}
	b, err := encode(index)
	if err != nil {
		return nil, err
	}
	files[IndexName] = b
	return files, nil
}

// articles are the board's articles, newest first, each last changed
// when it was posted or its author last edited it.
func (s *Service) articles(ctx context.Context) ([]stamped, error) {
	var out []stamped
	const per = 500
	for page := 1; ; page++ {
		p, err := s.board.Articles(ctx, board.ArticleQuery{Sort: board.SortNew, Page: page, PerPage: per})
		if err != nil {
			return nil, fmt.Errorf("sitemap articles: %w", err)
		}
		for _, a := range p.Articles {
			if a.Hidden {
				continue
			}
			mod := a.Posted
			if a.Edited.After(mod) {
				mod = a.Edited
			}
			out = append(out, stamped{s.opt.ShopURL + s.opt.Links.Article(a.ID, a.Title), mod})
		}
		if len(p.Articles) < per || page*per >= p.Total {
			return out, nil
		}
	}
}

// FilePath is the path a sitemap file is served at.
func FilePath(name string) string { return "/sitemaps/" + name + ".xml" }

// w3c is a time in the W3C datetime form sitemaps take.
func w3c(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func encode(v any) ([]byte, error) {
	b, err := xml.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("sitemap: %w", err)
	}
	return append([]byte(xml.Header), b...), nil
}
