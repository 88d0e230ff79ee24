package admin

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/views"
)

// adminItemsPerPage is the admin item list's page size.
const adminItemsPerPage = 50

// Items is GET /admin/items?q=&page=: every item, archived ones too,
// searched by name or number.
func (h *Handler) Items(c echo.Context) error {
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	q, err := searchParam(c)
	if err != nil {
		return err
	}
	d := views.AdminItemsData{Query: q}
	if page <= web.MaxPage {
		res, err := h.catalog.AdminItems(c.Request().Context(), catalog.AdminItemQuery{Q: q, Page: page, PerPage: adminItemsPerPage})
		if err != nil {
			return err
		}
		d.Total = res.Total
		for _, it := range res.Items {
			d.Items = append(d.Items, views.AdminItemRow{ID: it.ID, Name: it.Name, Category: it.Category,
				PriceCents: it.PriceCents, Stock: it.Stock, Archived: it.Archived()})
		}
	}
	d.Pager = web.PagerFor(page, adminItemsPerPage, d.Total, listURL("/admin/items", url.Values{"q": {q}}))
	return web.Render(c, http.StatusOK, views.AdminItemsPage(h.web.Chrome(c, "Items"), d))
}

// NewItemForm is GET /admin/items/new.
func (h *Handler) NewItemForm(c echo.Context) error {
	f := views.ItemForm{Stock: "0"}
	if err := h.withCategories(c.Request().Context(), &f); err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.AdminItemPage(h.web.Chrome(c, "New item"), f))
}

// CreateItem is POST /admin/items/new: validate, create, and go to
// the new item's edit page.
func (h *Handler) CreateItem(c echo.Context) error {
	f := readItemForm(c, 0)
	edit, errs := validateItemForm(h.web.Currency(), f)
	if len(errs) > 0 {
		return h.itemFormError(c, f, errs)
	}
	it, err := h.catalog.CreateItem(c.Request().Context(), catalog.NewItem{Name: edit.Name, PriceCents: edit.PriceCents,
		Stock: edit.Stock, Category: edit.Category, Description: edit.Description, Tags: edit.Tags})
	if err != nil {
		return err
	}
	h.web.Audit(c, "create item", "item "+web.Itoa(it.ID), "name", it.Name, "price_cents", it.PriceCents, "stock", it.Stock, "category", it.Category)
	return h.web.Done(c, fmt.Sprintf("Created item %d.", it.ID), "/admin/items/"+web.Itoa(it.ID))
}

// ArchiveItem is POST /admin/items/:id/archive.
func (h *Handler) ArchiveItem(c echo.Context) error { return h.setArchived(c, true) }

// RestoreItem is POST /admin/items/:id/restore.
func (h *Handler) RestoreItem(c echo.Context) error { return h.setArchived(c, false) }

func (h *Handler) setArchived(c echo.Context, archived bool) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	changed, err := h.catalog.SetItemArchived(c.Request().Context(), id, archived)
	if err != nil {
		return err
	}
	action, msg := "archive item", fmt.Sprintf("Item %d is archived: off sale and out of every listing.", id)
	if !archived {
		action, msg = "restore item", fmt.Sprintf("Item %d is back on sale.", id)
	}
	if !changed {
		msg = fmt.Sprintf("Item %d was already like that; nothing changed.", id)
	}
	h.web.Audit(c, action, "item "+web.Itoa(id), "changed", changed)
	return h.web.Done(c, msg, "/admin/items/"+web.Itoa(id))
}

// readItemForm reads the item form's fields as typed.
func readItemForm(c echo.Context, id int64) views.ItemForm {
	return views.ItemForm{ID: id, Name: strings.TrimSpace(c.FormValue("name")), Price: strings.TrimSpace(c.FormValue("price")),
		Stock: strings.TrimSpace(c.FormValue("stock")), Category: strings.TrimSpace(c.FormValue("category")),
		Description: strings.TrimSpace(c.FormValue("description")), Tags: strings.TrimSpace(c.FormValue("tags"))}
}

// itemFormError answers a bad item form: 422 with the form as typed.
func (h *Handler) itemFormError(c echo.Context, f views.ItemForm, errs map[string]string) error {
	if web.WantsJSON(c) {
		return c.JSON(http.StatusUnprocessableEntity, map[string]any{"errors": errs})
	}
	f.Errors = errs
	if err := h.withCategories(c.Request().Context(), &f); err != nil {
		return err
	}
	title := "New item"
	if f.ID > 0 {
		title = "Edit item"
	}
	return web.Render(c, http.StatusUnprocessableEntity, views.AdminItemPage(h.web.Chrome(c, title), f))
}

// withCategories fills the form's category suggestions.
func (h *Handler) withCategories(ctx context.Context, f *views.ItemForm) error {
	cats, err := h.catalog.Categories(ctx)
	if err != nil {
		return err
	}
	for _, cat := range cats {
		f.Categories = append(f.Categories, cat.Name)
	}
	return nil
}

// validCategory checks a category name: 1 to 50 characters on one line.
func validCategory(s string) bool {
	n := utf8.RuneCountInString(s)
	return n >= 1 && n <= 50 && web.Printable(s)
}
