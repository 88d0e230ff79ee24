package shop

import (
	"context"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/store/search"
	"storefront/views"
)

// maxCategoryPath bounds a /c/ path before any lookup.
const maxCategoryPath = 3*catalog.MaxCategoryTitle + 8

// ShowCategory is GET /c/<path>: a category's page, the catalog's listing
// of the category and every category below it, with the same search,
// filters, sorts and pages, whose facets are its subcategories. A path
// the category had before a rename or a move answers 301 to its path now,
// the query kept.
func (h *Handler) ShowCategory(c echo.Context) error {
	path := catalog.CleanPath(c.Param("*"))
	if path == "" {
		return c.Redirect(302, "/items")
	}
	if len(path) > maxCategoryPath {
		return web.NotFound("That category does not exist.")
	}
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	tree, err := h.catalog.Tree(ctx)
	if err != nil {
		return err
	}
	node, ok := tree.ByPath(path)
	if !ok {
		moved, _, err := h.catalog.MovedCategory(ctx, path)
		if err != nil {
			return err
		}
		if moved == nil {
			return web.NotFound("That category does not exist.")
		}
		return h.web.MovedTo(c, views.CategoryPath(moved.Path))
	}
	if c.QueryParam("category") != "" {
		return web.BadRequest("A category's page takes no other category: use the links beside the items.")
	}
	p, q, err := parseListParams(c, h.web.Currency())
	if err != nil {
		return err
	}
	p.Base, p.Category = views.CategoryPath(node.Path), node.Name
	q.Category, q.Categories = "", tree.Names(node)
	return h.listing(c, p, q, page, tree, node)
}

// trailOf is the breadcrumbs to a category: the shop, then each category
// from the department down to it.
func trailOf(t *catalog.Tree, n *catalog.CategoryNode) []views.Crumb {
	out := []views.Crumb{{Name: "Shop", URL: "/items"}}
	for _, a := range t.Trail(n) {
		out = append(out, views.Crumb{Name: a.Title, URL: views.CategoryPath(a.Path)})
	}
	return out
}

// categoryTrail is the breadcrumbs to the category items name so, nil
// when the tree lacks it.
func (h *Handler) categoryTrail(ctx context.Context, name string) ([]views.Crumb, error) {
	t, err := h.catalog.Tree(ctx)
	if err != nil {
		return nil, err
	}
	n, ok := t.ByName(name)
	if !ok {
		return nil, nil
	}
	return trailOf(t, n), nil
}

// subcategoryFacets are a category page's facets: each category right
// below it with the matches of its whole subtree, under the page's other
// filters; those without matches are left out.
func subcategoryFacets(p listParams, t *catalog.Tree, n *catalog.CategoryNode, res search.SearchResult) []views.CategoryLink {
	counts := map[string]int{}
	for _, c := range res.Categories {
		counts[c.Name] = c.Count
	}
	var out []views.CategoryLink
	for _, child := range n.Children {
		total := 0
		for _, name := range t.Names(child) {
			total += counts[name]
		}
		if total == 0 {
			continue
		}
		to := p
		to.Base = views.CategoryPath(child.Path)
		out = append(out, views.CategoryLink{Name: child.Name, Title: child.Title, Count: total, URL: to.url(1)})
	}
	return out
}

// allIn is the "All" link of a category's page: the category one level up
// (the catalog for a department), the filters kept.
func allIn(p listParams, t *catalog.Tree, n *catalog.CategoryNode) string {
	up := p
	up.Base = ""
	if parent, ok := t.ByID(n.ParentID); ok {
		up.Base = views.CategoryPath(parent.Path)
	}
	up.Category = ""
	return up.url(1)
}

// categoryPathOf is a category's page for the name items carry, or the
// catalog's listing of it when the tree lacks it.
func categoryPathOf(t *catalog.Tree, name string) string {
	if n, ok := t.ByName(name); ok {
		return views.CategoryPath(n.Path)
	}
	return views.CategoryURL(name)
}
