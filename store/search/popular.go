package search

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"storefront/store/platform"
)

// popularChunk is how many ids of the view ranking one step reads.
const popularChunk = 500

// popularPage returns one page of matching ids, most viewed first: it
// walks the `viewed:` ranking in chunks, keeping the ids that match the
// query and filters, until the page is full. Items nobody viewed follow
// in catalog order once the ranking runs out. textKey, when not "", is
// where the ids matching the text query are cached.
func (s *Service) popularPage(ctx context.Context, f searchFilter, offset, limit int, textKey string) ([]int64, error) {
	var ranked []int64
	seen := map[int64]bool{}
	var text []int64 // sorted ids matching the text query; read with the first chunk
	for start := int64(0); ; start += popularChunk {
		ids, err := s.analytics.RankedIDs(ctx, start, popularChunk)
		if err != nil {
			return nil, fmt.Errorf("popular: %w", err)
		}
		if text == nil && f.text != "" {
			var err error
			if text, err = s.textMatches(ctx, f, textKey); err != nil {
				return nil, err
			}
		}
		matched, err := s.matching(ctx, f, text, ids)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if matched[id] && !seen[id] {
				seen[id] = true
				ranked = append(ranked, id)
			}
		}
		if len(ranked) >= offset+limit {
			return ranked[offset : offset+limit], nil
		}
		if len(ids) < popularChunk {
			break
		}
	}
	var out []int64
	if offset < len(ranked) {
		out = append(out, ranked[offset:]...)
	}
	skip := max(0, offset-len(ranked))
	return out, s.unviewed(ctx, f, seen, skip, limit, &out)
}

// unviewed appends to out, in catalog order, the matches not in seen,
// after skipping skip of them, until out holds limit ids.
func (s *Service) unviewed(ctx context.Context, f searchFilter, seen map[int64]bool, skip, limit int, out *[]int64) error {
	where, args := f.where(true, true)
	rows, err := s.db.QueryContext(ctx, `SELECT items.id FROM `+f.from+` WHERE `+where+` ORDER BY items.id`, args...)
	if err != nil {
		return fmt.Errorf("popular: %w", err)
	}
	defer rows.Close()
	for len(*out) < limit && rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return fmt.Errorf("popular: %w", err)
		}
		if seen[id] {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		*out = append(*out, id)
	}
	return rows.Err()
}

// matching says which of ids match the query and filters. The text
// query is checked against text, the sorted ids matching it, rather than
// in SQL: joined to the full-text index, SQLite would find every match
// of the text to check a few hundred ids.
func (s *Service) matching(ctx context.Context, f searchFilter, text []int64, ids []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(ids))
	if f.text != "" {
		var kept []int64
		for _, id := range ids {
			if _, ok := slices.BinarySearch(text, id); ok {
				kept = append(kept, id)
			}
		}
		ids = kept
	}
	if len(ids) == 0 {
		return out, nil
	}
	plain := f
	plain.from, plain.text = "items", ""
	where, args := plain.where(true, true)
	ph := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		ph[i] = fmt.Sprintf("$%d", len(args))
	}
	got, err := s.queryIDs(ctx, `SELECT items.id FROM items WHERE `+where+` AND items.id IN (`+strings.Join(ph, ",")+`)`, args...)
	for _, id := range got {
		out[id] = true
	}
	return out, err
}

// textMatches returns the sorted ids of the items matching the text query
// alone (archived ones too: the other conditions are checked apart),
// cached under key when not "".
func (s *Service) textMatches(ctx context.Context, f searchFilter, key string) ([]int64, error) {
	if key != "" {
		if v, ok := s.cache.get(key); ok {
			return v.([]int64), nil
		}
	}
	query := `SELECT rowid FROM items_fts WHERE items_fts MATCH $1`
	if s.dbKind == platform.DBPostgres {
		query = `SELECT id FROM items WHERE search @@ to_tsquery('english', $1)`
	}
	ids, err := s.queryIDs(ctx, query, f.textArg)
	if err != nil {
		return nil, err
	}
	if ids == nil {
		ids = []int64{}
	}
	slices.Sort(ids)
	if key != "" {
		s.cache.put(key, ids, int64(8*len(ids)))
	}
	return ids, nil
}
