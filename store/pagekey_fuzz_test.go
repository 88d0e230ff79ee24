package store_test

import (
	"math/rand/v2"
	"net/url"
	"testing"

	"storefront/store"
)

// FuzzPageKey checks the page cache's URL normalisation: the key does not
// depend on the order of the query's parameters or on tracking parameters
// (utm_*, fbclid, gclid); a `_` parameter always bypasses; different
// paths or meaningful queries get different keys. Seeds run with every
// `go test`; to search further:
//
//	go test -run XXX -fuzz FuzzPageKey -fuzztime 1m ./store/
func FuzzPageKey(f *testing.F) {
	for _, s := range []struct{ path, query string }{
		{"/items/1", ""}, {"/items/1", "a=1&b=2"}, {"/items/1", "b=2&a=1"}, {"/items/1", "utm_source=x&utm_medium=y"},
		{"/items/1", "_=1"}, {"/items/1", "fbclid=1&gclid=2&page=3"}, {"/items/1", "a=1&a=2"}, {"/items/1", "a=%ZZ"},
		{"/items/%31", "q=caf%C3%A9"}, {"/items/1", "utm_=1&UTM_source=2"}, {"/items/1", "=1&&a"},
	} {
		f.Add(s.path, s.query, uint64(1))
	}
	f.Fuzz(func(t *testing.T, path, rawQuery string, seed uint64) {
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return // the router hands the page cache only what parses
		}
		key, ok := store.PageKey(path, q)
		if _, bypass := q["_"]; bypass {
			if ok {
				t.Fatalf("%s?%s: a `_` parameter must bypass the cache", path, rawQuery)
			}
			return
		}
		if !ok || len(key) != 64 {
			t.Fatalf("%s?%s: key %q, %v", path, rawQuery, key, ok)
		}
		// The same parameters in another order, plus tracking ones.
		rng := rand.New(rand.NewPCG(seed, 7))
		shuffled := url.Values{}
		names := make([]string, 0, len(q))
		for k := range q {
			names = append(names, k)
		}
		rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
		for _, k := range names {
			shuffled[k] = q[k]
		}
		shuffled.Set("utm_campaign", "spring")
		shuffled.Set("fbclid", "abc")
		shuffled.Set("gclid", "def")
		if again, _ := store.PageKey(path, shuffled); again != key {
			t.Fatalf("%s?%s: the key changed with the order or tracking parameters", path, rawQuery)
		}
		// A meaningful parameter more is another page; so is another path.
		more := url.Values{}
		for k, v := range q {
			more[k] = v
		}
		more.Add("fuzz-extra", "1")
		if other, _ := store.PageKey(path, more); other == key {
			t.Fatalf("%s?%s: a meaningful parameter did not change the key", path, rawQuery)
		}
		if other, _ := store.PageKey(path+"x", q); other == key {
			t.Fatalf("%s?%s: another path got the same key", path, rawQuery)
		}
	})
}
