package search

import (
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/store/catalog"
	"storefront/store/platform"
	"storefront/store/seed"
	"storefront/store/storetest"
)

// TestSearchTypoNearWordsMatchWholeVocabulary: reading only the words that
// can be one typo away finds the same corrections, in the same order, as
// comparing against every catalog word (SQLite; PostgreSQL reads them all).
func TestSearchTypoNearWordsMatchWholeVocabulary(t *testing.T) {
	// The shortcut is SQLite's (PostgreSQL compares against the whole
	// vocabulary), so this runs on a SQLite database of its own whichever
	// database the other tests use, once per test binary.
	storetest.OnePass(t)
	db, err := platform.OpenDB(t.Context(), "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := platform.Migrate(t.Context(), db); err != nil {
		t.Fatal(err)
	}
	b := platform.NewBase(storetest.Redis(t), db, storetest.Logger(t))
	cat := catalog.New(b, nil)
	if err := cat.AddItems(t.Context(), seed.DemoItems(time.Now())); err != nil {
		t.Fatal(err)
	}
	st := New(b, Options{}, cat, nil)
	rng := rand.New(rand.NewPCG(3, 5))
	letters := []rune("abcdefghijklmnopqrstuvwxyz0123456789é")
	seen := map[string]bool{}
	var typos []string
	for _, it := range seed.DemoItems(time.Now()) {
		for _, w := range strings.Fields(strings.ToLower(it.Name + " " + it.Category)) {
			r := []rune(w)
			if len(r) < 5 || seen[w] || len(typos) >= 60 {
				continue
			}
			seen[w] = true
			i := rng.IntN(len(r))
			c := letters[rng.IntN(len(letters))]
			forms := []string{
				string(r[:i]) + string(c) + string(r[i+1:]), // changed
				string(r[:i]) + string(c) + string(r[i:]),   // added
				string(r[:i]) + string(r[i+1:]),             // dropped
				string(c) + string(r[1:]),                   // first changed
				string(c) + w,                               // one in front
				string(r[1:]),                               // first dropped
				string(r[1]) + string(r[0]) + string(r[2:]), // first two swapped
			}
			// Two forms per word, sixty typos in all, keep the test quick
			// (each typo costs a few queries, slow under the race
			// detector); the word order and the seed vary which.
			for _, k := range []int{len(seen) % len(forms), rng.IntN(len(forms))} {
				if typo := forms[k]; len([]rune(typo)) >= 5 {
					typos = append(typos, typo)
				}
			}
		}
	}
	near, full, err := typoAlternatives(t.Context(), st, typos)
	if err != nil {
		t.Fatal(err)
	}
	corrected := 0
	for i, typo := range typos {
		if !slices.Equal(near[i], full[i]) {
			t.Errorf("%q: near words give %v, the whole vocabulary %v", typo, near[i], full[i])
		}
		if len(full[i]) > 0 {
			corrected++
		}
	}
	if corrected < len(typos)/4 {
		t.Errorf("only %d of %d typos corrected: the test no longer exercises corrections", corrected, len(typos))
	}
}

// typoAlternatives returns the corrections of each word found through
// the words near it (as Search does on SQLite) and through the whole
// vocabulary, which must agree.
func typoAlternatives(ctx context.Context, s *Service, words []string) (near, full [][]string, err error) {
	v, err := s.searchVersion(ctx)
	if err != nil {
		return nil, nil, err
	}
	vocab, err := s.vocabulary(ctx, v, false)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range words {
		var f, n []string
		if !startsAWord(w, vocab) {
			f = oneTypoAway(w, vocab)
		}
		starts, words, err := s.nearWords(ctx, w, v, true)
		if err != nil {
			return nil, nil, err
		}
		if !starts {
			n = oneTypoAway(w, words)
		}
		near, full = append(near, n), append(full, f)
	}
	return near, full, nil
}
