package catalog

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// MaxDepth is how deep the catalog tree goes: a department, its
// categories and theirs.
const MaxDepth = 3

// MaxCategories bounds the tree, which every listing reads whole.
const MaxCategories = 2000

// CategoryNode is one category of the tree. Name is the key items carry
// (items.category) and never changes; Title is what shoppers see and
// Path where they find it (/c/<path>).
type CategoryNode struct {
	ID        int64
	Name      string
	Title     string
	Slug      string
	ParentID  int64 // 0 for a department
	Path      string
	Depth     int
	UpdatedAt int64
	Children  []*CategoryNode // by title
}

// Tree is the whole catalog tree, read at once.
type Tree struct {
	Roots  []*CategoryNode // by title
	byID   map[int64]*CategoryNode
	byName map[string]*CategoryNode
	byPath map[string]*CategoryNode
}

// ByPath returns the category at a path.
func (t *Tree) ByPath(path string) (*CategoryNode, bool) { n, ok := t.byPath[path]; return n, ok }

// ByName returns the category items name so.
func (t *Tree) ByName(name string) (*CategoryNode, bool) { n, ok := t.byName[name]; return n, ok }

// ByID returns a category by id.
func (t *Tree) ByID(id int64) (*CategoryNode, bool) { n, ok := t.byID[id]; return n, ok }

// All returns every category, depth first, each after its parent.
func (t *Tree) All() []*CategoryNode {
	var out []*CategoryNode
	var walk func([]*CategoryNode)
	walk = func(ns []*CategoryNode) {
		for _, n := range ns {
			out = append(out, n)
			walk(n.Children)
		}
	}
	walk(t.Roots)
	return out
}

// Trail is the category's ancestors and itself, the department first.
func (t *Tree) Trail(n *CategoryNode) []*CategoryNode {
	var out []*CategoryNode
	for n != nil {
		out = append(out, n)
		n = t.byID[n.ParentID]
	}
	slices.Reverse(out)
	return out
}

// Names is the names of the category and every category below it: the
// items of a category's page are those of its whole subtree.
func (t *Tree) Names(n *CategoryNode) []string {
	out := []string{n.Name}
	for _, c := range n.Children {
		out = append(out, t.Names(c)...)
	}
	return out
}

// Height is how many levels the subtree under n holds, n's own included.
func (n *CategoryNode) Height() int {
	h := 0
	for _, c := range n.Children {
		h = max(h, c.Height())
	}
	return h + 1
}

// Within reports whether n is a or below it.
func (t *Tree) Within(n, a *CategoryNode) bool {
	for ; n != nil; n = t.byID[n.ParentID] {
		if n.ID == a.ID {
			return true
		}
	}
	return false
}

// Tree reads the catalog tree. It is small (MaxCategories) and read
// afresh by each page that shows it, so that a rename or a move shows on
// every instance at once.
func (s *Service) Tree(ctx context.Context) (*Tree, error) {
	return readTree(ctx, s.db)
}

func readTree(ctx context.Context, q querier) (*Tree, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, name, title, slug, COALESCE(parent_id, 0), path, depth, updated_at FROM categories ORDER BY title, id`)
	if err != nil {
		return nil, fmt.Errorf("catalog tree: %w", err)
	}
	defer rows.Close()
	t := &Tree{byID: map[int64]*CategoryNode{}, byName: map[string]*CategoryNode{}, byPath: map[string]*CategoryNode{}}
	var all []*CategoryNode
	for rows.Next() {
		n := &CategoryNode{}
		if err := rows.Scan(&n.ID, &n.Name, &n.Title, &n.Slug, &n.ParentID, &n.Path, &n.Depth, &n.UpdatedAt); err != nil {
			return nil, fmt.Errorf("catalog tree: %w", err)
		}
		all = append(all, n)
		t.byID[n.ID], t.byName[n.Name], t.byPath[n.Path] = n, n, n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("catalog tree: %w", err)
	}
	for _, n := range all {
		if p, ok := t.byID[n.ParentID]; ok {
			p.Children = append(p.Children, n)
		} else {
			t.Roots = append(t.Roots, n)
		}
	}
	return t, nil
}

// MovedCategory returns the category that had the path before a rename or
// a move, for a 301 to its path now.
func (s *Service) MovedCategory(ctx context.Context, path string) (*CategoryNode, *Tree, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT category_id FROM category_moves WHERE path = $1`, path).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("moved category: %w", err)
	}
	t, err := s.Tree(ctx)
	if err != nil {
		return nil, nil, err
	}
	n, _ := t.ByID(id)
	return n, t, nil
}

// categorySlug is a title's slug, never empty.
func categorySlug(title string) string {
	if s := Slugify(title); s != "" {
		return s
	}
	return "category"
}

// joinPath is a child's path under its parent's ("" for a department).
func joinPath(parent, slug string) string {
	if parent == "" {
		return slug
	}
	return parent + "/" + slug
}

// CleanPath reads a /c/ path as a shopper typed it: slugs separated by
// single slashes, without the leading or trailing one.
func CleanPath(p string) string { return strings.Trim(p, "/") }
