package collections

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"storefront/store/catalog"
	"storefront/store/platform"
)

// Kinds of collection.
const (
	Manual = "manual"
	Rule   = "rule"
)

// Limits of a collection.
const (
	MaxTitle = 80
	MaxBlurb = 500
	MaxItems = 200 // a manual collection's items
	MaxTag   = 32
	MaxDays  = 365
	// MaxCollections bounds the admin's list and the sitemap's.
	MaxCollections = 500
)

// Rules pick a rule collection's items; zero values are "not set".
type Rules struct {
	Tag            string
	MinCents       int64 // with HasMin
	MaxCents       int64 // with HasMax
	HasMin, HasMax bool
	OnSale         bool // a variant's "was" price is above its price
	NewDays        int  // added in the last NewDays days
}

// Collection is one collection.
type Collection struct {
	ID        int64
	Slug      string
	Title     string
	Blurb     string
	Kind      string
	Rules     Rules
	Items     []int64 // a manual collection's items, in order
	UpdatedAt int64
}

// FieldError is a field of a collection's form that is wrong.
type FieldError struct{ Field, Msg string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Unwrap makes a FieldError a platform.ErrInvalid.
func (e *FieldError) Unwrap() error { return platform.ErrInvalid }

// Service is the collections.
type Service struct {
	db        *sql.DB
	clock     *platform.Clock
	listeners []func(context.Context) error
}

// New returns the collections over the shared base.
func New(b platform.Base) *Service { return &Service{db: b.DB, clock: b.Clock} }

// OnChange registers a listener for committed saves (the sitemaps).
func (s *Service) OnChange(f func(context.Context) error) { s.listeners = append(s.listeners, f) }

const columns = `id, slug, title, blurb, kind, rule_tag, rule_min, rule_max, rule_sale, rule_days, updated_at`

func scan(row interface{ Scan(...any) error }) (Collection, error) {
	var c Collection
	var lo, hi sql.NullInt64
	err := row.Scan(&c.ID, &c.Slug, &c.Title, &c.Blurb, &c.Kind, &c.Rules.Tag, &lo, &hi, &c.Rules.OnSale, &c.Rules.NewDays, &c.UpdatedAt)
	c.Rules.MinCents, c.Rules.HasMin, c.Rules.MaxCents, c.Rules.HasMax = lo.Int64, lo.Valid, hi.Int64, hi.Valid
	return c, err
}

// List returns every collection, by title.
func (s *Service) List(ctx context.Context) ([]Collection, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+columns+` FROM collections ORDER BY title, id LIMIT $1`, MaxCollections)
	if err != nil {
		return nil, fmt.Errorf("collections: %w", err)
	}
	defer rows.Close()
	var out []Collection
	for rows.Next() {
		c, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("collections: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Stamp is a collection's page and when it last changed (the sitemap's
// lastmod).
type Stamp struct {
	Slug    string
	Changed time.Time
}

// Stamps lists the collections' pages for the sitemap.
func (s *Service) Stamps(ctx context.Context) ([]Stamp, error) {
	cs, err := s.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Stamp, len(cs))
	for i, c := range cs {
		out[i] = Stamp{Slug: c.Slug, Changed: time.Unix(c.UpdatedAt, 0)}
	}
	return out, nil
}

// BySlug reads a collection, with a manual one's items; ErrNotFound.
func (s *Service) BySlug(ctx context.Context, slug string) (Collection, error) {
	return s.one(ctx, `slug = $1`, slug)
}

// ByID reads a collection, with a manual one's items; ErrNotFound.
func (s *Service) ByID(ctx context.Context, id int64) (Collection, error) {
	return s.one(ctx, `id = $1`, id)
}

func (s *Service) one(ctx context.Context, where string, arg any) (Collection, error) {
	c, err := scan(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM collections WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Collection{}, platform.ErrNotFound
	}
	if err != nil {
		return Collection{}, fmt.Errorf("collection: %w", err)
	}
	rows, err := s.db.QueryContext(ctx, `SELECT item_id FROM collection_items WHERE collection_id = $1 ORDER BY position`, c.ID)
	if err != nil {
		return Collection{}, fmt.Errorf("collection: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return Collection{}, fmt.Errorf("collection: %w", err)
		}
		c.Items = append(c.Items, id)
	}
	return c, rows.Err()
}

// Page returns one page of the collection's items on sale, in its order
// (a manual one's own; a rule one's newest first), and how many there are.
func (s *Service) Page(ctx context.Context, c Collection, page, perPage int) ([]int64, int, error) {
	offset := (page - 1) * perPage
	where, args := "items."+catalog.OnSale, []any{}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	from, order := "items", "items.id DESC"
	if c.Kind == Manual {
		from = "collection_items ci JOIN items ON items.id = ci.item_id"
		where += " AND ci.collection_id = " + arg(c.ID)
		order = "ci.position"
	} else {
		r := c.Rules
		if r.Tag != "" {
			where += " AND items.tags LIKE " + arg("%,"+r.Tag+",%")
		}
		if r.HasMin {
			where += " AND items.price_cents >= " + arg(r.MinCents)
		}
		if r.HasMax {
			where += " AND items.price_cents <= " + arg(r.MaxCents)
		}
		if r.OnSale {
			where += ` AND EXISTS (SELECT 1 FROM item_variants v WHERE v.item_id = items.id
				AND v.compare_at_cents > COALESCE(v.price_cents, items.price_cents))`
		}
		if r.NewDays > 0 {
			where += " AND items.created_at >= " + arg(s.clock.Now().Add(-time.Duration(r.NewDays)*24*time.Hour).Unix())
		}
	}
	var total int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+from+` WHERE `+where, args...).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("collection %s: %w", c.Slug, err)
	}
	if offset >= total {
		return nil, total, nil
	}
	n := len(args)
	args = append(args, perPage, offset)
	rows, err := s.db.QueryContext(ctx, `SELECT items.id FROM `+from+` WHERE `+where+` ORDER BY `+order+
		` LIMIT $`+strconv.Itoa(n+1)+` OFFSET $`+strconv.Itoa(n+2), args...)
	if err != nil {
		return nil, 0, fmt.Errorf("collection %s: %w", c.Slug, err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, 0, fmt.Errorf("collection %s: %w", c.Slug, err)
		}
		ids = append(ids, id)
	}
	return ids, total, rows.Err()
}

// Form is a collection as the admin typed it.
type Form struct {
	Title, Slug, Blurb, Kind string
	// Items: a manual collection's item ids, separated by commas, spaces
	// or lines, in order.
	Items string
	// Rules, each optional: a tag, a price range as the admin typed
	// cents (already read by the caller), on sale, new in days.
	Tag            string
	MinCents       int64
	MaxCents       int64
	HasMin, HasMax bool
	OnSale         bool
	NewDays        string
}

// Save checks and saves a collection (id 0 makes one). A *FieldError
// says what is wrong, and then nothing changed.
func (s *Service) Save(ctx context.Context, id int64, f Form) (Collection, error) {
	c, err := s.check(ctx, f)
	if err != nil {
		return Collection{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Collection{}, fmt.Errorf("save collection: %w", err)
	}
	defer tx.Rollback()
	var lo, hi sql.NullInt64
	lo.Int64, lo.Valid, hi.Int64, hi.Valid = c.Rules.MinCents, c.Rules.HasMin, c.Rules.MaxCents, c.Rules.HasMax
	now := s.clock.Now().Unix()
	var taken int64
	err = tx.QueryRowContext(ctx, `SELECT id FROM collections WHERE slug = $1`, c.Slug).Scan(&taken)
	if err == nil && taken != id {
		return Collection{}, &FieldError{"slug", "Another collection has that address."}
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return Collection{}, fmt.Errorf("save collection: %w", err)
	}
	if id == 0 {
		err = tx.QueryRowContext(ctx, `INSERT INTO collections (slug, title, blurb, kind, rule_tag, rule_min, rule_max, rule_sale, rule_days, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
			c.Slug, c.Title, c.Blurb, c.Kind, c.Rules.Tag, lo, hi, c.Rules.OnSale, c.Rules.NewDays, now).Scan(&id)
	} else {
		var res sql.Result
		res, err = tx.ExecContext(ctx, `UPDATE collections SET slug = $1, title = $2, blurb = $3, kind = $4, rule_tag = $5, rule_min = $6,
			rule_max = $7, rule_sale = $8, rule_days = $9, updated_at = $10 WHERE id = $11`,
			c.Slug, c.Title, c.Blurb, c.Kind, c.Rules.Tag, lo, hi, c.Rules.OnSale, c.Rules.NewDays, now, id)
		if err == nil {
			if n, _ := res.RowsAffected(); n == 0 {
				return Collection{}, platform.ErrNotFound
			}
		}
	}
	if isUnique(err) {
		return Collection{}, &FieldError{"slug", "Another collection has that address."}
	}
	if err != nil {
		return Collection{}, fmt.Errorf("save collection: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM collection_items WHERE collection_id = $1`, id); err != nil {
		return Collection{}, fmt.Errorf("save collection: %w", err)
	}
	for i, item := range c.Items {
		if _, err := tx.ExecContext(ctx, `INSERT INTO collection_items (collection_id, position, item_id) VALUES ($1, $2, $3)`, id, i, item); err != nil {
			return Collection{}, fmt.Errorf("save collection: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		if isUnique(err) {
			return Collection{}, &FieldError{"slug", "Another collection has that address."}
		}
		return Collection{}, fmt.Errorf("save collection: %w", err)
	}
	var errs []error
	for _, l := range s.listeners {
		errs = append(errs, l(ctx))
	}
	c.ID = id
	return c, errors.Join(errs...)
}

func isUnique(err error) bool {
	if err == nil {
		return false
	}
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "unique") || strings.Contains(m, "duplicate key")
}

// check reads the form into a collection.
func (s *Service) check(ctx context.Context, f Form) (Collection, error) {
	c := Collection{Title: strings.TrimSpace(f.Title), Blurb: strings.TrimSpace(f.Blurb), Kind: f.Kind}
	switch {
	case c.Title == "":
		return c, &FieldError{"title", "Give the collection a title."}
	case utf8.RuneCountInString(c.Title) > MaxTitle || strings.ContainsAny(c.Title, "\r\n"):
		return c, &FieldError{"title", fmt.Sprintf("The title is one line of at most %d characters.", MaxTitle)}
	case utf8.RuneCountInString(c.Blurb) > MaxBlurb:
		return c, &FieldError{"blurb", fmt.Sprintf("The text is at most %d characters.", MaxBlurb)}
	}
	c.Slug = catalog.Slugify(f.Slug)
	if strings.TrimSpace(f.Slug) == "" {
		c.Slug = catalog.Slugify(c.Title)
	}
	if c.Slug == "" || len(c.Slug) > 80 {
		return c, &FieldError{"slug", "The address is letters, digits and dashes, at most 80."}
	}
	switch c.Kind {
	case Manual:
		ids, err := s.itemIDs(ctx, f.Items)
		if err != nil {
			return c, err
		}
		c.Items = ids
	case Rule:
		r := Rules{Tag: NormTag(f.Tag), MinCents: f.MinCents, MaxCents: f.MaxCents, HasMin: f.HasMin, HasMax: f.HasMax, OnSale: f.OnSale}
		if strings.TrimSpace(f.Tag) != "" && (r.Tag == "" || len(r.Tag) > MaxTag) {
			return c, &FieldError{"tag", fmt.Sprintf("A tag is one word of letters, digits and dashes, at most %d.", MaxTag)}
		}
		if r.HasMin && r.HasMax && r.MinCents > r.MaxCents {
			return c, &FieldError{"max", "The lowest price is above the highest."}
		}
		if d := strings.TrimSpace(f.NewDays); d != "" {
			n, err := strconv.Atoi(d)
			if err != nil || n < 1 || n > MaxDays {
				return c, &FieldError{"new_days", fmt.Sprintf("New items are those added in the last 1 to %d days.", MaxDays)}
			}
			r.NewDays = n
		}
		if r == (Rules{}) {
			return c, &FieldError{"tag", "Set at least one rule: a tag, a price range, on sale or new."}
		}
		c.Rules = r
	default:
		return c, &FieldError{"kind", "A collection is manual or by rules."}
	}
	return c, nil
}

// NormTag is a tag as items carry it (catalog.NormTag).
func NormTag(t string) string { return catalog.NormTag(t) }

// itemIDs reads a manual collection's items: ids of items that exist,
// each once.
func (s *Service) itemIDs(ctx context.Context, typed string) ([]int64, error) {
	words := strings.FieldsFunc(typed, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
	if len(words) > MaxItems {
		return nil, &FieldError{"items", fmt.Sprintf("At most %d items (this is %d).", MaxItems, len(words))}
	}
	var ids []int64
	seen := map[int64]bool{}
	for _, w := range words {
		id, err := strconv.ParseInt(w, 10, 64)
		if err != nil || id <= 0 {
			return nil, &FieldError{"items", fmt.Sprintf("%q is not an item number.", clip(w, 20))}
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil, &FieldError{"items", "List the collection's items by number, in order."}
	}
	ph, args := platform.InList(1, ids)
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM items WHERE id IN (`+ph+`)`, args...).Scan(&n); err != nil {
		return nil, fmt.Errorf("collection items: %w", err)
	}
	if n != len(ids) {
		return nil, &FieldError{"items", "Some of those numbers name no item."}
	}
	return ids, nil
}

func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
