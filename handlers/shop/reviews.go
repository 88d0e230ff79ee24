package shop

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/views"
)

// PostReview is POST /items/:id/reviews (rating 1-5, body 1-2,000
// characters; signed in only): one review per account and item, posting
// again edits it. At most REVIEW_RATE per account. The item's cached pages
// are purged so that everyone sees the new average at once.
func (h *Handler) PostReview(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	s := web.SessionOf(c)
	rating, rerr := strconv.Atoi(strings.TrimSpace(c.FormValue("rating")))
	body := strings.TrimSpace(strings.ReplaceAll(c.FormValue("body"), "\r\n", "\n"))
	msg := ""
	switch {
	case rerr != nil || rating < 1 || rating > 5:
		msg = "Choose a rating from 1 to 5."
	case body == "":
		msg = "Write a few words about the item."
	default:
		msg = web.CheckText(body, "review")
	}
	if msg != "" {
		return web.Unprocessable(c, msg)
	}
	if err := h.web.Limit(c, keys.RateReview, web.Itoa(s.UserID), h.cfg.Review, "You are reviewing faster than we allow."); err != nil {
		return err
	}
	created, err := h.reviews.SaveReview(c.Request().Context(), id, s.UserID, rating, body)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no item with that number.")
	}
	if err != nil {
		return err
	}
	flash := "Your review is updated."
	if created {
		flash = "Thank you for your review."
	}
	if web.WantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]any{"item": id, "rating": rating, "created": created})
	}
	h.web.SetFlash(c, flash)
	return web.Redirect(c, views.ItemBase(id)+"#reviews")
}
