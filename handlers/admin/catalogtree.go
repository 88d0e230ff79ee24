package admin

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/store/collections"
	"storefront/store/merchant"
	"storefront/store/platform"
	"storefront/views"
)

// Categories is GET /admin/categories: the tree with its forms.
func (h *Handler) Categories(c echo.Context) error {
	return h.categoriesPage(c, http.StatusOK, "")
}

func (h *Handler) categoriesPage(c echo.Context, status int, msg string) error {
	t, err := h.tree.Tree(c.Request().Context())
	if err != nil {
		return err
	}
	d := views.AdminCategoriesData{Error: msg}
	for _, n := range t.All() {
		d.Rows = append(d.Rows, views.AdminCategoryRow{ID: n.ID, Name: n.Name, Title: n.Title, Path: n.Path, Depth: n.Depth, ParentID: n.ParentID})
	}
	return web.Render(c, status, views.AdminCategoriesPage(h.web.Chrome(c, "Categories"), d))
}

// parentParam reads the parent field: a category's id, 0 for none.
func parentParam(c echo.Context) (int64, error) {
	v := strings.TrimSpace(c.FormValue("parent"))
	if v == "" || v == "0" {
		return 0, nil
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 0 {
		return 0, &catalog.TreeError{Msg: "Choose the parent from the list."}
	}
	return id, nil
}

// treeAnswer turns a refused edit into a 422 saying why.
func (h *Handler) treeAnswer(c echo.Context, err error) error {
	if msg, ok := catalog.IsTreeError(err); ok {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
		}
		return h.categoriesPage(c, http.StatusUnprocessableEntity, msg)
	}
	return err
}

// CreateCategory is POST /admin/categories (title, parent).
func (h *Handler) CreateCategory(c echo.Context) error {
	parent, err := parentParam(c)
	if err != nil {
		return h.treeAnswer(c, err)
	}
	n, err := h.tree.CreateCategory(c.Request().Context(), c.FormValue("title"), parent)
	if err != nil {
		return h.treeAnswer(c, err)
	}
	h.web.Audit(c, "category added", n.Path)
	return h.web.Done(c, "Category added.", "/admin/categories")
}

// EditCategory is POST /admin/categories/:id (title, parent): a rename
// and a move at once.
func (h *Handler) EditCategory(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no such category.")
	}
	parent, err := parentParam(c)
	if err != nil {
		return h.treeAnswer(c, err)
	}
	err = h.tree.EditCategory(c.Request().Context(), id, c.FormValue("title"), parent)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no such category.")
	}
	if err != nil {
		return h.treeAnswer(c, err)
	}
	h.web.Audit(c, "category edited", strconv.FormatInt(id, 10))
	return h.web.Done(c, "Category saved.", "/admin/categories")
}

// Collections is GET /admin/collections: the list and a new one's form.
func (h *Handler) Collections(c echo.Context) error {
	return h.collectionsPage(c, http.StatusOK, views.AdminCollectionForm{Kind: collections.Manual}, "")
}

// EditCollectionForm is GET /admin/collections/:id.
func (h *Handler) EditCollectionForm(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no such collection.")
	}
	coll, err := h.collections.ByID(c.Request().Context(), id)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no such collection.")
	}
	if err != nil {
		return err
	}
	return h.collectionsPage(c, http.StatusOK, collectionForm(h.web.Currency(), coll), "")
}

func collectionForm(cur merchant.Currency, coll collections.Collection) views.AdminCollectionForm {
	f := views.AdminCollectionForm{ID: coll.ID, Title: coll.Title, Slug: coll.Slug, Blurb: coll.Blurb, Kind: coll.Kind,
		Tag: coll.Rules.Tag, OnSale: coll.Rules.OnSale}
	ids := make([]string, len(coll.Items))
	for i, id := range coll.Items {
		ids[i] = strconv.FormatInt(id, 10)
	}
	f.Items = strings.Join(ids, ", ")
	if coll.Rules.HasMin {
		f.Min = cur.AmountInput(coll.Rules.MinCents)
	}
	if coll.Rules.HasMax {
		f.Max = cur.AmountInput(coll.Rules.MaxCents)
	}
	if coll.Rules.NewDays > 0 {
		f.NewDays = strconv.Itoa(coll.Rules.NewDays)
	}
	return f
}

func (h *Handler) collectionsPage(c echo.Context, status int, f views.AdminCollectionForm, msg string) error {
	list, err := h.collections.List(c.Request().Context())
	if err != nil {
		return err
	}
	d := views.AdminCollectionsData{Form: f, Error: msg}
	for _, coll := range list {
		d.Rows = append(d.Rows, collectionForm(h.web.Currency(), coll))
	}
	return web.Render(c, status, views.AdminCollectionsPage(h.web.Chrome(c, "Collections"), d))
}

// SaveCollection is POST /admin/collections (a new one) and POST
// /admin/collections/:id: saved, or a 422 naming the wrong field.
func (h *Handler) SaveCollection(c echo.Context) error {
	var id int64
	if p := c.Param("id"); p != "" {
		var ok bool
		if id, ok = web.PathID(p); !ok {
			return web.NotFound("There is no such collection.")
		}
	}
	typed := views.AdminCollectionForm{ID: id, Title: c.FormValue("title"), Slug: c.FormValue("slug"), Blurb: c.FormValue("blurb"),
		Kind: c.FormValue("kind"), Items: c.FormValue("items"), Tag: c.FormValue("tag"), Min: strings.TrimSpace(c.FormValue("min")),
		Max: strings.TrimSpace(c.FormValue("max")), NewDays: c.FormValue("new_days"), OnSale: c.FormValue("on_sale") != ""}
	f := collections.Form{Title: typed.Title, Slug: typed.Slug, Blurb: typed.Blurb, Kind: typed.Kind, Items: typed.Items,
		Tag: typed.Tag, OnSale: typed.OnSale, NewDays: typed.NewDays}
	var err error
	cur := h.web.Currency()
	if typed.Min != "" {
		if f.MinCents, f.HasMin = cur.ParseAmount(typed.Min); !f.HasMin {
			err = &collections.FieldError{Field: "min", Msg: fmt.Sprintf("Write the lowest price in %s, such as %s.", cur.Code, cur.AmountInput(1234))}
		}
	}
	if typed.Max != "" && err == nil {
		if f.MaxCents, f.HasMax = cur.ParseAmount(typed.Max); !f.HasMax {
			err = &collections.FieldError{Field: "max", Msg: fmt.Sprintf("Write the highest price in %s, such as %s.", cur.Code, cur.AmountInput(1234))}
		}
	}
	var saved collections.Collection
	if err == nil {
		saved, err = h.collections.Save(c.Request().Context(), id, f)
	}
	var fe *collections.FieldError
	if errors.As(err, &fe) {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": fe.Msg, "field": fe.Field})
		}
		typed.Errors = map[string]string{fe.Field: fe.Msg}
		return h.collectionsPage(c, http.StatusUnprocessableEntity, typed, "The collection was not saved: "+fe.Msg)
	}
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no such collection.")
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "collection saved", saved.Slug)
	return h.web.Done(c, "Collection saved.", "/admin/collections/"+strconv.FormatInt(saved.ID, 10))
}
