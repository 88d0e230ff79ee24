package search

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/redis/go-redis/v9"

	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/platform"
)

// DefaultCacheBytes bounds each instance's cache of search results when
// Options.CacheBytes is 0.
const DefaultCacheBytes = 16 << 20

// searchVersion identifies one state of the catalog. Results are cached
// under the version read before they were computed, and a search only
// uses results cached under the version it reads itself, so an edit seen
// by the version is never hidden by a cached result.
//
// On SQLite the database keeps both numbers (search_version, bumped by
// triggers in the writer's transaction). On PostgreSQL the database's
// numbers come from sequences, taken before the writer commits; app is
// then the Redis generation (keys.SearchGen) that the store's own writes
// bump after they commit, so a result computed in between is not served
// after the writer's purge.
type searchVersion struct {
	catalog int64 // every change of an item
	words   int64 // changes of an item's words
	app     int64 // PostgreSQL: the Redis generation
}

// searchVersion reads the catalog's current version.
func (s *Service) searchVersion(ctx context.Context) (searchVersion, error) {
	var v searchVersion
	if s.dbKind != platform.DBPostgres {
		err := s.db.QueryRowContext(ctx, `SELECT n, words FROM search_version WHERE id = 1`).Scan(&v.catalog, &v.words)
		if err != nil {
			return v, fmt.Errorf("search version: %w", err)
		}
		return v, nil
	}
	app, err := s.rdb.Get(ctx, keys.SearchGen).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return v, fmt.Errorf("search version: %w", err)
	}
	v.app = app
	err = s.db.QueryRowContext(ctx, `SELECT (SELECT last_value FROM search_version), (SELECT last_value FROM search_words_version)`).Scan(&v.catalog, &v.words)
	if err != nil {
		return v, fmt.Errorf("search version: %w", err)
	}
	return v, nil
}

// resultsKey is the part of the version that search results depend on;
// wordsKey the part the vocabulary depends on.
func (v searchVersion) resultsKey() string {
	return strconv.FormatInt(v.catalog, 10) + "." + strconv.FormatInt(v.app, 10)
}

func (v searchVersion) wordsKey() string {
	return strconv.FormatInt(v.words, 10) + "." + strconv.FormatInt(v.app, 10)
}

// ItemsChanged bumps the Redis search generation after a committed item
// change that a search can see (text, category, price, on sale or not, in
// stock or not); the wiring registers it with the catalog. Changes that
// a search cannot see (a sale that leaves stock, a picture, a review)
// leave cached results alone, as the database's own version does.
func (s *Service) ItemsChanged(ctx context.Context, c catalog.Change) error {
	if c.Search {
		s.AllChanged(ctx)
	}
	return nil
}

// AllChanged bumps the Redis search generation: every cached result is
// computed again (the page cache's purge of everything calls it too). A
// failure is logged, not returned: the database's version still moved,
// and on SQLite it alone decides.
func (s *Service) AllChanged(ctx context.Context) {
	if err := s.rdb.Incr(context.WithoutCancel(ctx), keys.SearchGen).Err(); err != nil {
		s.log.Warn("search generation", "err", err)
	}
}

// CacheVersion is the catalog version that search results are cached
// under now (for diagnostics: it moves only with changes a search can
// see).
func (s *Service) CacheVersion(ctx context.Context) (string, error) {
	v, err := s.searchVersion(ctx)
	return v.resultsKey() + "/" + v.wordsKey(), err
}

// searchCache holds computed search results (facet counts, pages of ids,
// spelling corrections) in process, least recently used out first,
// bounded in bytes. Keys start with the catalog version they were
// computed under; entries of older versions are never asked for again and
// age out. Only ids and counts are held: the items shown are always read
// fresh, so a cached result can never show an old price, stock or name.
type searchCache struct {
	max     int64
	mu      sync.Mutex
	results platform.SizedLRU[any]
	// vocab is the catalog vocabulary for spelling correction, held
	// apart (it is large and shared by every query) under its version.
	vocabKey string
	vocab    []vocabWord
}

func newSearchCache(maxBytes int64) *searchCache {
	return &searchCache{max: maxBytes, results: platform.NewSizedLRU[any](maxBytes)}
}

// get returns the value held under key.
func (c *searchCache) get(key string) (any, bool) {
	if c == nil || c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.results.Get(key)
}

// put holds val under key; size is its approximate size in bytes. The
// value must not be changed afterwards: readers share it.
func (c *searchCache) put(key string, val any, size int64) {
	if c == nil || c.max <= 0 {
		return
	}
	size += int64(len(key)) + 64 // the entry and its list and map slots
	if size > c.max/4 {
		return // one broad result must not push everything else out
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.results.Add(key, val, size)
}

// getVocab returns the vocabulary held for the words version key.
func (c *searchCache) getVocab(key string) ([]vocabWord, bool) {
	if c == nil || c.max <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.vocab, c.vocab != nil && c.vocabKey == key
}

// putVocab holds the vocabulary read under the words version key.
func (c *searchCache) putVocab(key string, vocab []vocabWord) {
	if c == nil || c.max <= 0 || vocab == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.vocabKey, c.vocab = key, vocab
}
