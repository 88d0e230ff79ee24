package admin

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/merchant"
	"storefront/store/platform"
	"storefront/views"
)

// adminInvalid answers an admin post with bad input: 422 with the message,
// as JSON or on the system page, where the controls are.
func (h *Handler) adminInvalid(c echo.Context, msg string) error {
	if web.WantsJSON(c) {
		return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
	}
	d, err := h.dashboardData(c)
	if err != nil {
		return err
	}
	ch := h.web.Chrome(c, "System")
	ch.Flash, ch.FlashOK = msg, false
	return web.Render(c, http.StatusUnprocessableEntity, views.SystemPage(ch, d))
}

// PurgePages is POST /admin/cache/purge: item=<id> purges that item's
// pages, all=1 every page.
func (h *Handler) PurgePages(c echo.Context) error {
	ctx := c.Request().Context()
	if c.FormValue("all") == "1" {
		n, err := h.pages.PurgeAllPages(ctx)
		if err != nil {
			return err
		}
		h.web.Audit(c, "purge all pages", "all pages", "pages", n)
		return h.web.Done(c, "Purged every cached page: "+views.Counted(int64(n), "page", "pages")+".", "/admin/system")
	}
	id, ok := positiveID(c.FormValue("item"))
	if !ok {
		return h.adminInvalid(c, "Give an item number to purge, or purge every page.")
	}
	n, err := h.pages.PurgeItemPages(ctx, id)
	if err != nil {
		return err
	}
	h.web.Audit(c, "purge item pages", "item "+web.Itoa(id), "pages", n)
	return h.web.Done(c, fmt.Sprintf("Purged %s of item %d.", views.Counted(int64(n), "cached page", "cached pages"), id), "/admin/system")
}

// Rescale is POST /admin/rescale: trim and halve the view counts now.
func (h *Handler) Rescale(c echo.Context) error {
	if err := h.views.Rescale(c.Request().Context()); err != nil {
		return err
	}
	h.web.Audit(c, "rescale views", keys.ViewRanking)
	return h.web.Done(c, "View counts rescaled.", "/admin/system")
}

// RowCache is POST /admin/rowcache (row, delay in seconds): schedule
// a row in the row cache, or with delay <= 0 stop caching it.
func (h *Handler) RowCache(c echo.Context) error {
	id, ok := positiveID(c.FormValue("row"))
	if !ok {
		return h.adminInvalid(c, "The row must be an item number.")
	}
	secs, err := strconv.ParseFloat(strings.TrimSpace(c.FormValue("delay")), 64)
	if err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) || secs > 365*24*3600 {
		return h.adminInvalid(c, "The delay must be a number of seconds, at most a year (0 or less stops caching).")
	}
	ctx := c.Request().Context()
	if secs > 0 {
		if _, err := h.catalog.Item(ctx, id); errors.Is(err, platform.ErrNotFound) {
			return h.adminInvalid(c, fmt.Sprintf("There is no item %d.", id))
		} else if err != nil {
			return err
		}
	}
	delay := time.Duration(secs * float64(time.Second))
	if secs > 0 && delay <= 0 {
		delay = 1 // a tiny positive delay stays a schedule
	}
	if err := h.catalog.ScheduleRow(ctx, id, delay); err != nil {
		return err
	}
	action := "schedule row"
	if secs <= 0 {
		action = "unschedule row"
	}
	h.web.Audit(c, action, "row "+web.Itoa(id), "delay_s", secs)
	if secs <= 0 {
		return h.web.Done(c, fmt.Sprintf("Row %d is no longer cached.", id), "/admin/system")
	}
	return h.web.Done(c, fmt.Sprintf("Row %d is cached and refreshed every %s s.", id, strconv.FormatFloat(secs, 'f', -1, 64)), "/admin/system")
}

// EditItemForm is GET /admin/items/:id.
func (h *Handler) EditItemForm(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	it, err := h.catalog.Item(c.Request().Context(), id)
	if err != nil {
		return err
	}
	f := itemForm(h.web.Currency(), it)
	tags, err := h.catalog.Tags(c.Request().Context(), id)
	if err != nil {
		return err
	}
	f.Tags = strings.Join(tags, ", ")
	if err := h.withCategories(c.Request().Context(), &f); err != nil {
		return err
	}
	if err := h.withItemPictures(c, &f); err != nil {
		return err
	}
	revs, _, err := h.reviews.AdminItemReviews(c.Request().Context(), id)
	if err != nil {
		return err
	}
	for _, r := range revs {
		f.Reviews = append(f.Reviews, views.ReviewView{ID: r.Ref(), User: r.Username, Rating: r.Rating, Body: r.Body,
			When: web.When(r.Updated), Verified: r.Verified, Hidden: r.Hidden})
	}
	return web.Render(c, http.StatusOK, views.AdminItemPage(h.web.Chrome(c, "Edit "+it.Name), f))
}

// itemForm is the edit form filled with an item's current values.
func itemForm(cur merchant.Currency, it catalog.Item) views.ItemForm {
	return views.ItemForm{
		ID: it.ID, Name: it.Name, Price: cur.AmountInput(it.PriceCents), Stock: strconv.FormatInt(it.Stock, 10),
		Category: it.Category, Description: it.Description, Archived: it.Archived(),
	}
}

// UpdateItem is POST /admin/items/:id: validate, save, purge the
// item's cached pages at once, and redirect with a flash.
func (h *Handler) UpdateItem(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	f := readItemForm(c, id)
	if params, _ := c.FormParams(); !params.Has("category") {
		// A form without the field (older clients) keeps the category.
		it, err := h.catalog.Item(c.Request().Context(), id)
		if err != nil {
			return err
		}
		f.Category = it.Category
	}
	edit, errs := validateItemForm(h.web.Currency(), f)
	if params, _ := c.FormParams(); !params.Has("tags") {
		edit.KeepTags = true
	}
	if len(errs) > 0 {
		return h.itemFormError(c, f, errs)
	}
	it, err := h.catalog.UpdateItem(c.Request().Context(), id, edit)
	if err != nil {
		return err
	}
	h.web.Audit(c, "edit item", "item "+web.Itoa(id), "name", it.Name, "price_cents", it.PriceCents, "stock", it.Stock, "category", it.Category)
	return h.web.Done(c, fmt.Sprintf("Saved item %d. Its cached pages were purged.", id), "/admin/items/"+web.Itoa(id))
}

// validateItemForm checks an edit and returns it with any field errors.
func validateItemForm(cur merchant.Currency, f views.ItemForm) (catalog.ItemEdit, map[string]string) {
	errs := map[string]string{}
	e := catalog.ItemEdit{Name: f.Name, Description: f.Description, Category: f.Category}
	if n := utf8.RuneCountInString(f.Name); n < 1 || n > 200 || !web.Printable(f.Name) {
		errs["name"] = "Use 1 to 200 characters, on one line."
	}
	if minor, ok := parsePrice(cur, f.Price); ok {
		e.PriceCents = minor
	} else {
		errs["price"] = priceRule(cur, "The price")
	}
	if n, err := strconv.ParseInt(f.Stock, 10, 64); err == nil && n >= 0 && n <= 1_000_000_000 {
		e.Stock = n
	} else {
		errs["stock"] = "Use a whole number from 0 to 1,000,000,000."
	}
	if !validCategory(f.Category) {
		errs["category"] = "Use 1 to 50 characters, on one line."
	}
	if utf8.RuneCountInString(f.Description) > 2000 || !utf8.ValidString(f.Description) {
		errs["description"] = "Use at most 2,000 characters."
	}
	if msg := catalog.TagsError(f.Tags); msg != "" {
		errs["tags"] = msg
	}
	e.Tags = catalog.ParseTags(f.Tags)
	return e, errs
}

func positiveID(s string) (int64, bool) {
	id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	return id, err == nil && id > 0
}
