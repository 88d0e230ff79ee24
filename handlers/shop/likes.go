package shop

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/keys"
	"storefront/store/social"
	"storefront/views"
)

// homeLiked is how many items the home page's like boards show.
const homeLiked = 10

// likeAnswer is the JSON answer of POST /items/:id/like.
type likeAnswer struct {
	Liked bool  `json:"liked"`
	Count int64 `json:"count"`
}

// LikeItem likes, unlikes (dir=like|unlike) or toggles (no dir) an item
// for the signed-in shopper. JSON clients get {liked, count}; forms go
// back to the item (or next).
func (h *Handler) LikeItem(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	s := web.SessionOf(c)
	mode := c.FormValue("dir")
	switch mode {
	case "like", "unlike":
	case "", "toggle":
		mode = social.LikeToggle
	default:
		return web.BadRequest("Say like or unlike.")
	}
	ctx := c.Request().Context()
	if _, err := h.catalog.Item(ctx, id); err != nil {
		return err
	}
	if err := h.web.Limit(c, keys.RateLike, web.Itoa(s.UserID), h.cfg.Like, "You are liking very quickly."); err != nil {
		return err
	}
	res, err := h.likes.SetLike(ctx, id, s.UserID, mode)
	if err != nil {
		return err
	}
	if web.WantsJSON(c) {
		web.NoStore(c)
		return c.JSON(http.StatusOK, likeAnswer{Liked: res.Liked, Count: res.Count})
	}
	return web.Redirect(c, web.LocalPath(c.FormValue("next"), views.ItemBase(id)))
}
