package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"storefront/store/platform"
)

// MaxCategoryTitle is the longest category title.
const MaxCategoryTitle = 64

// TreeError is an edit of the tree that cannot be made, with why in the
// admin's words; nothing changed.
type TreeError struct{ Msg string }

func (e *TreeError) Error() string { return e.Msg }

// Unwrap makes a TreeError a platform.ErrInvalid.
func (e *TreeError) Unwrap() error { return platform.ErrInvalid }

type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// SyncCategories makes a department for every category name an item
// carries without a row (items written before the tree, or by SQL), on
// start-up.
func (s *Service) SyncCategories(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `SELECT DISTINCT category FROM items WHERE category NOT IN (SELECT name FROM categories)`)
	if err != nil {
		return fmt.Errorf("sync categories: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return fmt.Errorf("sync categories: %w", err)
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("sync categories: %w", err)
	}
	return s.ensureCategories(ctx, s.db, names...)
}

// ensureCategories gives each name without a row a department of its
// own, titled with the name, at a free path. Two writers racing on one
// name both try; the name's key keeps one.
func (s *Service) ensureCategories(ctx context.Context, ex execer, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	t, err := readTree(ctx, ex)
	if err != nil {
		return err
	}
	now := s.clock.Now().Unix()
	for _, name := range names {
		if _, ok := t.byName[name]; ok || name == "" {
			continue
		}
		path := freePath(t, "", categorySlug(name))
		if _, err := ex.ExecContext(ctx, `INSERT INTO categories (name, title, slug, path, depth, updated_at) VALUES ($1, $2, $3, $4, 1, $5)
			ON CONFLICT DO NOTHING`, name, name, path, path, now); err != nil {
			return fmt.Errorf("new category %q: %w", name, err)
		}
		n := &CategoryNode{Name: name, Path: path}
		t.byName[name], t.byPath[path] = n, n
	}
	return nil
}

// freePath is the first of slug, slug-2, slug-3... free under parent.
func freePath(t *Tree, parent, slug string) string {
	p := joinPath(parent, slug)
	for i := 2; ; i++ {
		if _, taken := t.byPath[p]; !taken {
			return p
		}
		p = joinPath(parent, slug+"-"+strconv.Itoa(i))
	}
}

// checkTitle reads a category title.
func checkTitle(title string) (string, error) {
	title = strings.TrimSpace(title)
	switch {
	case title == "":
		return "", &TreeError{"Give the category a name."}
	case !utf8.ValidString(title) || utf8.RuneCountInString(title) > MaxCategoryTitle:
		return "", &TreeError{fmt.Sprintf("A category's name is at most %d characters.", MaxCategoryTitle)}
	case strings.ContainsAny(title, "\r\n\t"):
		return "", &TreeError{"A category's name is one line."}
	}
	return title, nil
}

// CreateCategory adds a category under parent (0: a department). Its
// name, the key items carry, is its title; names are unique in the shop.
func (s *Service) CreateCategory(ctx context.Context, title string, parentID int64) (*CategoryNode, error) {
	title, err := checkTitle(title)
	if err != nil {
		return nil, err
	}
	tx, t, err := s.lockTree(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	parentPath, depth := "", 1
	if parentID != 0 {
		p, ok := t.ByID(parentID)
		if !ok {
			return nil, &TreeError{"That parent category does not exist."}
		}
		if p.Depth >= MaxDepth {
			return nil, &TreeError{fmt.Sprintf("Categories nest at most %d levels deep.", MaxDepth)}
		}
		parentPath, depth = p.Path, p.Depth+1
	}
	if _, taken := t.ByName(title); taken {
		return nil, &TreeError{"A category of that name exists already."}
	}
	if len(t.byID) >= MaxCategories {
		return nil, &TreeError{fmt.Sprintf("The shop holds at most %d categories.", MaxCategories)}
	}
	slug := categorySlug(title)
	path := joinPath(parentPath, slug)
	if _, taken := t.ByPath(path); taken {
		return nil, &TreeError{"A category with that name is there already."}
	}
	parent := sql.NullInt64{Int64: parentID, Valid: parentID != 0}
	if _, err := tx.ExecContext(ctx, `INSERT INTO categories (name, title, slug, parent_id, path, depth, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		title, title, slug, parent, path, depth, s.clock.Now().Unix()); err != nil {
		return nil, fmt.Errorf("new category: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM category_moves WHERE path = $1`, path); err != nil {
		return nil, fmt.Errorf("new category: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("new category: %w", err)
	}
	t, err = s.Tree(ctx)
	if err != nil {
		return nil, err
	}
	n, _ := t.ByName(title)
	return n, nil
}

// lockTree begins a transaction that holds every category row, so edits
// of the tree take turns (two moves at once could otherwise make a loop),
// and reads the tree in it.
func (s *Service) lockTree(ctx context.Context) (*sql.Tx, *Tree, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("edit categories: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE categories SET updated_at = updated_at`); err != nil {
		tx.Rollback()
		return nil, nil, fmt.Errorf("edit categories: %w", err)
	}
	t, err := readTree(ctx, tx)
	if err != nil {
		tx.Rollback()
		return nil, nil, err
	}
	return tx, t, nil
}

// EditCategory renames a category and moves it under another parent (0:
// a department). Its path and those of every category below it follow,
// and their old paths answer with a redirect to the new ones. A move
// into its own subtree, or one that would nest deeper than MaxDepth, is
// a TreeError. The items of the subtree are announced as changed (their
// pages show the category's breadcrumbs).
func (s *Service) EditCategory(ctx context.Context, id int64, title string, parentID int64) error {
	title, err := checkTitle(title)
	if err != nil {
		return err
	}
	tx, t, err := s.lockTree(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	n, ok := t.ByID(id)
	if !ok {
		return platform.ErrNotFound
	}
	parentPath, depth := "", 1
	if parentID != 0 {
		p, ok := t.ByID(parentID)
		if !ok {
			return &TreeError{"That parent category does not exist."}
		}
		if t.Within(p, n) {
			return &TreeError{"A category cannot move into itself or a category below it."}
		}
		parentPath, depth = p.Path, p.Depth+1
	}
	if depth+n.Height()-1 > MaxDepth {
		return &TreeError{fmt.Sprintf("Categories nest at most %d levels deep: this one and those below it would go deeper.", MaxDepth)}
	}
	slug := categorySlug(title)
	path := joinPath(parentPath, slug)
	if other, taken := t.ByPath(path); taken && other.ID != n.ID {
		return &TreeError{"A category with that name is there already."}
	}
	if path == n.Path && title == n.Title {
		return nil
	}
	now := s.clock.Now().Unix()
	parent := sql.NullInt64{Int64: parentID, Valid: parentID != 0}
	if _, err := tx.ExecContext(ctx, `UPDATE categories SET title = $1, slug = $2, parent_id = $3, updated_at = $4 WHERE id = $5`,
		title, slug, parent, now, n.ID); err != nil {
		return fmt.Errorf("edit category: %w", err)
	}
	// The subtree's paths and depths, parents first (All's order): a
	// child's new path is under its parent's new one.
	newPath := map[int64]string{n.ID: path}
	var names []string
	var walk func(c *CategoryNode, d int)
	walk = func(c *CategoryNode, d int) {
		names = append(names, c.Name)
		for _, k := range c.Children {
			newPath[k.ID] = joinPath(newPath[c.ID], k.Slug)
			walk(k, d+1)
		}
	}
	walk(n, depth)
	var subtree []*CategoryNode
	for _, c := range t.All() {
		if _, in := newPath[c.ID]; in {
			subtree = append(subtree, c)
		}
	}
	for _, c := range subtree {
		if c.Path == newPath[c.ID] {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE categories SET path = $1, depth = $2, updated_at = $3 WHERE id = $4`,
			newPath[c.ID], depth+c.Depth-n.Depth, now, c.ID); err != nil {
			return fmt.Errorf("edit category: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO category_moves (path, category_id) VALUES ($1, $2)
			ON CONFLICT (path) DO UPDATE SET category_id = excluded.category_id`, c.Path, c.ID); err != nil {
			return fmt.Errorf("edit category: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM category_moves WHERE path = $1`, newPath[c.ID]); err != nil {
			return fmt.Errorf("edit category: %w", err)
		}
	}
	ids, err := itemsInCategories(ctx, tx, names)
	if err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("edit category: %w", err)
	}
	return s.Changed(ctx, Change{IDs: ids, Search: true})
}

// itemsInCategories returns the ids of the items in the named categories.
func itemsInCategories(ctx context.Context, q querier, names []string) ([]int64, error) {
	ph := make([]string, len(names))
	args := make([]any, len(names))
	for i, n := range names {
		ph[i], args[i] = "$"+strconv.Itoa(i+1), n
	}
	rows, err := q.QueryContext(ctx, `SELECT id FROM items WHERE category IN (`+strings.Join(ph, ", ")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("category items: %w", err)
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("category items: %w", err)
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// IsTreeError reports a TreeError and its message.
func IsTreeError(err error) (string, bool) {
	var te *TreeError
	if errors.As(err, &te) {
		return te.Msg, true
	}
	return "", false
}
