package pagecache

import (
	"net/url"
	"testing"
)

// FuzzPageKey checks the page cache's URL rule: the item page reads only
// `variant`, so any query without `_` maps to the key of the item and its
// chosen variant (nobody can mint entries by inventing parameters), and a
// `_` parameter always bypasses without changing the variant shown. Seeds
// run with every `go test`; to search further:
//
//	go test -run XXX -fuzz FuzzPageKey -fuzztime 1m ./store/pagecache/
func FuzzPageKey(f *testing.F) {
	for _, q := range []string{"", "a=1&b=2", "b=2&a=1", "utm_source=x&utm_medium=y", "_=1", "fbclid=1&gclid=2&page=3",
		"a=1&a=2", "q=caf%C3%A9", "utm_=1&UTM_source=2", "=1&&a", "x=1&_", "variant=3&_=1", "_=1&variant=3", "variant=3&utm_source=x"} {
		f.Add(int64(1), q)
	}
	f.Fuzz(func(t *testing.T, id int64, rawQuery string) {
		q, err := url.ParseQuery(rawQuery)
		if err != nil {
			return // the router hands the page cache only what parses
		}
		key, variant, ok := pageKey(id, q)
		if _, bypass := q["_"]; bypass {
			if ok {
				t.Fatalf("%d?%s: a `_` parameter must bypass the cache", id, rawQuery)
			}
			q.Del("_")
			if _, want, _ := pageKey(id, q); variant != want {
				t.Fatalf("%d?%s: variant %d, but %d without the `_`", id, rawQuery, variant, want)
			}
			return
		}
		if !ok || key != VariantPageKey(id, variant) || len(key) != 64 {
			t.Fatalf("%d?%s: key %q, %v, want the item's one key", id, rawQuery, key, ok)
		}
		if PageKey(id+1) == key {
			t.Fatalf("%d: another item got the same key", id)
		}
	})
}
