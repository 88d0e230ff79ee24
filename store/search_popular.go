package store

import (
	"context"
	"fmt"
	"strings"
)

// popularChunk is how many ids of the view ranking one step reads.
const popularChunk = 500

// popularPage returns one page of matching ids, most viewed first: it
// walks the `viewed:` ranking in chunks, keeping the ids that match the
// query and filters, until the page is full. Items nobody viewed follow
// in catalog order once the ranking runs out.
func (s *Store) popularPage(ctx context.Context, f searchFilter, offset, limit int) ([]int64, error) {
	var ranked []int64
	seen := map[int64]bool{}
	for start := int64(0); ; start += popularChunk {
		members, err := s.rdb.ZRange(ctx, keyViewedItems, start, start+popularChunk-1).Result()
		if err != nil {
			return nil, fmt.Errorf("popular: %w", err)
		}
		ids := parseIDs(members)
		matched, err := s.matching(ctx, f, ids)
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
		if len(members) < popularChunk {
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
func (s *Store) unviewed(ctx context.Context, f searchFilter, seen map[int64]bool, skip, limit int, out *[]int64) error {
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

// matching says which of ids match the query and filters.
func (s *Store) matching(ctx context.Context, f searchFilter, ids []int64) (map[int64]bool, error) {
	out := make(map[int64]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	where, args := f.where(true, true)
	ph := make([]string, len(ids))
	for i, id := range ids {
		args = append(args, id)
		ph[i] = fmt.Sprintf("$%d", len(args))
	}
	got, err := s.queryIDs(ctx, `SELECT items.id FROM `+f.from+` WHERE `+where+` AND items.id IN (`+strings.Join(ph, ",")+`)`, args...)
	for _, id := range got {
		out[id] = true
	}
	return out, err
}
