package admin

import (
	"context"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/views"
)

// Demo removes the demo data (store/seed).
type Demo interface {
	RemoveDemo(ctx context.Context) (catalog.Removed, error)
}

// DemoForm is GET /admin/demo: what removing the demo data does, and the
// form that confirms it.
func (h *Handler) DemoForm(c echo.Context) error {
	return web.Render(c, http.StatusOK, views.AdminDemoPage(h.web.Chrome(c, "Remove the demo data"), ""))
}

// RemoveDemo is POST /admin/demo/remove (confirm=yes): the demo items no
// order holds are deleted and those an order holds archived, every cached
// page purged; without the confirmation, a 422 and nothing changes.
// Repeating it finds nothing left to do.
func (h *Handler) RemoveDemo(c echo.Context) error {
	if c.FormValue("confirm") != "yes" {
		msg := "Tick the box to confirm: the demo items cannot be brought back."
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg, "field": "confirm"})
		}
		return web.Render(c, http.StatusUnprocessableEntity, views.AdminDemoPage(h.web.Chrome(c, "Remove the demo data"), msg))
	}
	ctx := c.Request().Context()
	r, err := h.demo.RemoveDemo(ctx)
	if err != nil {
		return err
	}
	// The home page and the listings name the removed items too.
	if _, err := h.pages.PurgeAllPages(ctx); err != nil {
		return err
	}
	h.web.Audit(c, "remove demo data", "demo", "deleted", len(r.Deleted), "archived", len(r.Archived))
	return h.web.Done(c, fmt.Sprintf("Demo data removed: %s deleted, %s archived (orders hold them).",
		views.Counted(int64(len(r.Deleted)), "item", "items"), views.Counted(int64(len(r.Archived)), "item", "items")), "/admin")
}
