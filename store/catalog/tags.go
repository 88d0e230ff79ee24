package catalog

import (
	"context"
	"fmt"
	"strings"
)

// MaxTags is how many tags an item carries; MaxTagLen the longest tag.
const (
	MaxTags   = 20
	MaxTagLen = 32
)

// NormTag is a tag as items carry it: lower case letters, digits and
// dashes.
func NormTag(t string) string { return Slugify(t) }

// TagsError says what is wrong with tags as typed, or "" when ParseTags
// keeps every one of them.
func TagsError(typed string) string {
	words := strings.FieldsFunc(typed, func(r rune) bool { return r == ',' || r == ' ' })
	if len(words) > MaxTags {
		return fmt.Sprintf("At most %d tags (this is %d).", MaxTags, len(words))
	}
	for _, w := range words {
		if t := NormTag(w); t == "" || len(t) > MaxTagLen {
			return fmt.Sprintf("A tag is a word of letters, digits and dashes, at most %d long: %q is not.", MaxTagLen, w)
		}
	}
	return ""
}

// ParseTags reads tags as an admin typed them (separated by commas or
// spaces): each normalised, once, in order, at most MaxTags.
func ParseTags(typed string) []string {
	var tags []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(typed, func(r rune) bool { return r == ',' || r == ' ' }) {
		if t := NormTag(w); t != "" && len(t) <= MaxTagLen && !seen[t] && len(tags) < MaxTags {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	return tags
}

// Tags reads an item's tags.
func (s *Service) Tags(ctx context.Context, itemID int64) ([]string, error) {
	var stored string
	if err := s.db.QueryRowContext(ctx, `SELECT tags FROM items WHERE id = $1`, itemID).Scan(&stored); err != nil {
		return nil, fmt.Errorf("item tags: %w", err)
	}
	return strings.FieldsFunc(stored, func(r rune) bool { return r == ',' }), nil
}

// storedTags is how items carry tags: ",a,b,", so that a rule collection
// finds a tag with LIKE '%,tag,%'.
func storedTags(tags []string) string {
	if len(tags) == 0 {
		return ""
	}
	return "," + strings.Join(tags, ",") + ","
}

// SetTags sets items' tags.
func (s *Service) SetTags(ctx context.Context, tags []string, itemIDs ...int64) error {
	stored := storedTags(tags)
	for _, id := range itemIDs {
		if _, err := s.db.ExecContext(ctx, `UPDATE items SET tags = $1 WHERE id = $2`, stored, id); err != nil {
			return fmt.Errorf("item tags: %w", err)
		}
	}
	return nil
}
