package admin

import (
	"errors"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/merchant"
	"storefront/views"
)

// InfoPages is GET /admin/pages: the information pages and the form of a
// new one.
func (h *Handler) InfoPages(c echo.Context) error {
	return h.pagesList(c, http.StatusOK, views.PageForm{}, "")
}

// CreateInfoPage is POST /admin/pages (title, slug, body): the page is
// saved and linked from every footer (every cached page purged), or a 422
// says what is wrong and nothing changes.
func (h *Handler) CreateInfoPage(c echo.Context) error {
	f := readPageForm(c, "")
	p, err := h.merchant.SavePage(c.Request().Context(), "", merchant.PageForm{Title: f.Title, Slug: f.Slug, Body: f.Body})
	if fe, ok := errors.AsType[*merchant.FieldError](err); ok {
		f.Errors = map[string]string{fe.Field: fe.Msg}
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": fe.Msg, "field": fe.Field})
		}
		return h.pagesList(c, http.StatusUnprocessableEntity, f, "The page was not saved: "+fe.Msg)
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "create page", "page "+p.Slug, "title", p.Title)
	return h.web.Done(c, "Page saved: /pages/"+p.Slug+" is linked from every page's footer.", "/admin/pages/"+p.Slug)
}

// EditInfoPage is GET /admin/pages/:slug: one page's editor.
func (h *Handler) EditInfoPage(c echo.Context) error {
	p, err := h.merchant.Page(c.Param("slug"))
	if errors.Is(err, merchant.ErrPageNotFound) {
		return web.NotFound("There is no page at this address.")
	}
	if err != nil {
		return err
	}
	f := views.PageForm{Old: p.Slug, Title: p.Title, Slug: p.Slug, Body: p.Body}
	return web.Render(c, http.StatusOK, views.AdminPageEditPage(h.web.Chrome(c, "Edit "+p.Title), f, ""))
}

// SaveInfoPage is POST /admin/pages/:slug (title, slug, body): the page
// saved, perhaps at a new slug, or a 422 saying what is wrong and nothing
// changed.
func (h *Handler) SaveInfoPage(c echo.Context) error {
	old := c.Param("slug")
	f := readPageForm(c, old)
	p, err := h.merchant.SavePage(c.Request().Context(), old, merchant.PageForm{Title: f.Title, Slug: f.Slug, Body: f.Body})
	if errors.Is(err, merchant.ErrPageNotFound) {
		return web.NotFound("There is no page at this address.")
	}
	if fe, ok := errors.AsType[*merchant.FieldError](err); ok {
		f.Errors = map[string]string{fe.Field: fe.Msg}
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": fe.Msg, "field": fe.Field})
		}
		return web.Render(c, http.StatusUnprocessableEntity, views.AdminPageEditPage(h.web.Chrome(c, "Edit page"), f, "The page was not saved: "+fe.Msg))
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "edit page", "page "+p.Slug, "title", p.Title, "was", old)
	return h.web.Done(c, "Page saved.", "/admin/pages/"+p.Slug)
}

// DeleteInfoPage is POST /admin/pages/:slug/delete: the page and its
// footer link go.
func (h *Handler) DeleteInfoPage(c echo.Context) error {
	slug := c.Param("slug")
	err := h.merchant.DeletePage(c.Request().Context(), slug)
	if errors.Is(err, merchant.ErrPageNotFound) {
		return web.NotFound("There is no page at this address.")
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "delete page", "page "+slug)
	return h.web.Done(c, "Page /pages/"+slug+" deleted.", "/admin/pages")
}

func (h *Handler) pagesList(c echo.Context, status int, f views.PageForm, msg string) error {
	d := views.AdminPagesData{New: f, Error: msg}
	for _, p := range h.merchant.Pages() {
		d.Pages = append(d.Pages, views.InfoLink{Title: p.Title, Slug: p.Slug})
	}
	return web.Render(c, status, views.AdminPagesPage(h.web.Chrome(c, "Pages"), d))
}

// readPageForm reads the page form's fields as typed.
func readPageForm(c echo.Context, old string) views.PageForm {
	return views.PageForm{Old: old, Title: c.FormValue("title"), Slug: c.FormValue("slug"), Body: c.FormValue("body")}
}
