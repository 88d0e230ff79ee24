package search

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"storefront/store/catalog"
	"storefront/store/platform"
)

// Spelling correction applies to words at least this long: shorter ones
// have too many neighbours one typo away.
const minCorrectable = 5

// maxSearchWords bounds the words of one query that reach the index.
const maxSearchWords = 12

// searchWords splits a query into lower-case words of letters and digits,
// without repeats. Everything else (quotes, operators, punctuation) is a
// separator, so no query syntax of either database reaches it.
func searchWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if !seen[w] && len(out) < maxSearchWords {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// wordGroups makes each word a group of one alternative.
func wordGroups(words []string) [][]string {
	out := make([][]string, len(words))
	for i, w := range words {
		out[i] = []string{w}
	}
	return out
}

// ftsQuery is an FTS5 MATCH expression: every group must match, any
// alternative of a group may; words of two or more letters match as
// prefixes so that "tent" finds "tents" while the shopper is typing.
func ftsQuery(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		alts := make([]string, len(g))
		for j, w := range g {
			alts[j] = `"` + w + `"`
			if utf8.RuneCountInString(w) > 1 {
				alts[j] += "*"
			}
		}
		parts[i] = "(" + strings.Join(alts, " OR ") + ")"
	}
	return strings.Join(parts, " AND ")
}

// tsQuery is the same expression for PostgreSQL's to_tsquery.
func tsQuery(groups [][]string) string {
	parts := make([]string, len(groups))
	for i, g := range groups {
		alts := make([]string, len(g))
		for j, w := range g {
			alts[j] = w + ":*"
		}
		parts[i] = "(" + strings.Join(alts, " | ") + ")"
	}
	return strings.Join(parts, " & ")
}

// suggestion is the corrected query a shopper is offered: each group's
// best alternative.
func suggestion(groups [][]string) string {
	words := make([]string, len(groups))
	for i, g := range groups {
		words[i] = g[0]
	}
	return strings.Join(words, " ")
}

// vocabWord is a catalog word and how many items use it (0 when the
// database does not count).
type vocabWord struct {
	word  string
	runes []rune
	docs  int
}

// correct replaces each word of five or more letters that starts no
// catalog word by the catalog words one typo away from it (best first).
// changed says whether any word was replaced. With cached, the vocabulary
// and each word's corrections are held under the words version of v.
func (s *Service) correct(ctx context.Context, words []string, v searchVersion, cached bool) ([][]string, bool, error) {
	groups := wordGroups(words)
	changed := false
	var vocab []vocabWord
	for i, w := range words {
		if utf8.RuneCountInString(w) < minCorrectable {
			continue
		}
		key := ""
		if cached {
			key = v.wordsKey() + "|typo|" + w
			if alts, ok := s.cache.get(key); ok {
				if alts := alts.([]string); len(alts) > 0 {
					groups[i], changed = alts, true
				}
				continue
			}
		}
		var alts []string
		if s.dbKind == platform.DBPostgres {
			if vocab == nil {
				var err error
				if vocab, err = s.vocabulary(ctx, v, cached); err != nil {
					return nil, false, err
				}
			}
			if !startsAWord(w, vocab) {
				alts = oneTypoAway(w, vocab)
			}
		} else {
			starts, near, err := s.nearWords(ctx, w, v, cached)
			if err != nil {
				return nil, false, err
			}
			if !starts {
				alts = oneTypoAway(w, near)
			}
		}
		if key != "" {
			s.cache.put(key, alts, int64(16*len(alts)+len(strings.Join(alts, ""))))
		}
		if len(alts) > 0 {
			groups[i], changed = alts, true
		}
	}
	return groups, changed, nil
}

// vocabulary reads the catalog's words of four or more letters: FTS5's own
// vocabulary table on SQLite, the trigger-kept search_words on PostgreSQL.
// It is read once per words version when cached.
func (s *Service) vocabulary(ctx context.Context, v searchVersion, cached bool) ([]vocabWord, error) {
	if cached {
		if vocab, ok := s.cache.getVocab(v.wordsKey()); ok {
			return vocab, nil
		}
	}
	query := `SELECT term, doc FROM items_vocab WHERE length(term) >= 4`
	if s.dbKind == platform.DBPostgres {
		query = `SELECT word, 0 FROM search_words WHERE length(word) >= 4`
	}
	rows, err := s.db.QueryContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("search vocabulary: %w", err)
	}
	defer rows.Close()
	out := []vocabWord{}
	for rows.Next() {
		var v vocabWord
		if err := rows.Scan(&v.word, &v.docs); err != nil {
			return nil, fmt.Errorf("search vocabulary: %w", err)
		}
		v.runes = []rune(v.word)
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search vocabulary: %w", err)
	}
	if cached {
		s.cache.putVocab(v.wordsKey(), out)
	}
	return out, nil
}

// nearWords reads from SQLite's vocabulary only the words that can be
// one typo from w (of five or more letters), rather than all of them: the
// words that start with w's first letter, and those whose edit is at the
// front: w without its first letter, with its first two swapped, and with
// any other first letter in front of w or in place of its first. starts
// says whether a word starts with w (which is then left as it is).
func (s *Service) nearWords(ctx context.Context, w string, v searchVersion, cached bool) (starts bool, near []vocabWord, err error) {
	var next string
	if err := s.db.QueryRowContext(ctx, `SELECT term FROM items_vocab WHERE term >= $1 LIMIT 1`, w).Scan(&next); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return false, nil, fmt.Errorf("search vocabulary: %w", err)
	}
	if strings.HasPrefix(next, w) {
		return true, nil, nil
	}
	rw := []rune(w)
	firsts, err := s.firstLetters(ctx, v, cached)
	if err != nil {
		return false, nil, err
	}
	seen := map[string]bool{}
	read := func(query string, args ...any) error {
		rows, err := s.db.QueryContext(ctx, query, args...)
		if err != nil {
			return fmt.Errorf("search vocabulary: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var vw vocabWord
			if err := rows.Scan(&vw.word, &vw.docs); err != nil {
				return fmt.Errorf("search vocabulary: %w", err)
			}
			if !seen[vw.word] {
				seen[vw.word] = true
				vw.runes = []rune(vw.word)
				near = append(near, vw)
			}
		}
		return rows.Err()
	}
	if err := read(`SELECT term, doc FROM items_vocab WHERE term >= $1 AND term < $2 AND length(term) >= 4`,
		string(rw[0]), string(nextRune(rw[0]))); err != nil {
		return false, nil, err
	}
	exact := []any{string(rw[1:]), string(rw[1]) + string(rw[0]) + string(rw[2:])}
	for _, c := range firsts {
		if c != rw[0] {
			exact = append(exact, string(c)+string(rw[1:]), string(c)+w)
		}
	}
	ph := make([]string, len(exact))
	for i := range exact {
		ph[i] = fmt.Sprintf("$%d", i+1)
	}
	if err := read(`SELECT term, doc FROM items_vocab WHERE term IN (`+strings.Join(ph, ",")+`)`, exact...); err != nil {
		return false, nil, err
	}
	return false, near, nil
}

// firstLetters lists the letters SQLite's vocabulary words start with,
// skipping from one letter to the next through the sorted vocabulary.
func (s *Service) firstLetters(ctx context.Context, v searchVersion, cached bool) ([]rune, error) {
	key := v.wordsKey() + "|firsts"
	if cached {
		if f, ok := s.cache.get(key); ok {
			return f.([]rune), nil
		}
	}
	var out []rune
	for from := ""; ; {
		var term string
		err := s.db.QueryRowContext(ctx, `SELECT term FROM items_vocab WHERE term >= $1 LIMIT 1`, from).Scan(&term)
		if errors.Is(err, sql.ErrNoRows) || term == "" {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("search vocabulary: %w", err)
		}
		r, _ := utf8.DecodeRuneInString(term)
		out = append(out, r)
		if r >= unicode.MaxRune {
			break
		}
		from = string(nextRune(r))
	}
	if cached {
		s.cache.put(key, out, int64(4*len(out)))
	}
	return out, nil
}

// nextRune is the first valid rune after r (skipping the surrogates,
// which UTF-8 cannot hold): every string starting with r sorts before it.
func nextRune(r rune) rune {
	if r+1 >= 0xD800 && r+1 <= 0xDFFF {
		return 0xE000
	}
	return r + 1
}

func startsAWord(prefix string, vocab []vocabWord) bool {
	for _, v := range vocab {
		if strings.HasPrefix(v.word, prefix) {
			return true
		}
	}
	return false
}

// oneTypoAway returns the vocabulary words one edit from w (a letter
// added, dropped, changed, or two neighbours swapped), the most used
// first, at most five.
func oneTypoAway(w string, vocab []vocabWord) []string {
	var hits []vocabWord
	rw := []rune(w)
	for _, v := range vocab {
		if d := len(v.runes) - len(rw); d >= -1 && d <= 1 && oneEdit(rw, v.runes) {
			hits = append(hits, v)
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].docs != hits[j].docs {
			return hits[i].docs > hits[j].docs
		}
		return hits[i].word < hits[j].word
	})
	out := make([]string, 0, 5)
	for _, h := range hits {
		if len(out) < cap(out) {
			out = append(out, h.word)
		}
	}
	return out
}

// oneEdit says whether a and b differ by exactly one insertion, deletion,
// substitution or swap of adjacent letters.
func oneEdit(a, b []rune) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	switch len(b) - len(a) {
	case 0:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		if i == len(a) {
			return false // equal
		}
		if slices.Equal(a[i+1:], b[i+1:]) {
			return true // substitution
		}
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:])
	case 1:
		i := 0
		for i < len(a) && a[i] == b[i] {
			i++
		}
		return slices.Equal(a[i:], b[i+1:])
	}
	return false
}

func sortCategories(cs []catalog.Category) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Count != cs[j].Count {
			return cs[i].Count > cs[j].Count
		}
		return cs[i].Name < cs[j].Name
	})
}
