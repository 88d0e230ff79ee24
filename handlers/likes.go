package handlers

import (
	"context"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/store/keys"
	"storefront/store/social"
	"storefront/views"
)

// likeStore is the part of the store that likes and the home page's like
// boards use.
type likeStore interface {
	SetLike(ctx context.Context, itemID, userID int64, mode string) (social.LikeResult, error)
	ItemStats(ctx context.Context, itemID, userID int64) (social.ItemCounts, bool, error)
	LikeBoards(ctx context.Context, n int64) ([]social.ItemLikes, []int64, error)
}

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
	id, err := itemIDParam(c)
	if err != nil {
		return err
	}
	s := session(c)
	mode := c.FormValue("dir")
	switch mode {
	case "like", "unlike":
	case "", "toggle":
		mode = social.LikeToggle
	default:
		return badRequest("Say like or unlike.")
	}
	ctx := c.Request().Context()
	if _, err := h.store.Item(ctx, id); err != nil {
		return err
	}
	if err := h.limit(c, keys.RateLike, itoa(s.UserID), h.cfg.Rates.Like, "You are liking very quickly."); err != nil {
		return err
	}
	res, err := h.store.SetLike(ctx, id, s.UserID, mode)
	if err != nil {
		return err
	}
	if wantsJSON(c) {
		noStore(c)
		return c.JSON(http.StatusOK, likeAnswer{Liked: res.Liked, Count: res.Count})
	}
	return redirect(c, localPath(c.FormValue("next"), views.ItemURL(id)))
}

// likeState is the like box of an item for the current visitor.
func (h *Handler) likeState(c echo.Context, itemID int64) (views.LikeState, int64, error) {
	s := session(c)
	counts, liked, err := h.store.ItemStats(c.Request().Context(), itemID, s.UserID)
	if err != nil {
		return views.LikeState{}, 0, err
	}
	return views.LikeState{ItemID: itemID, Count: counts.Likes, Liked: liked, SignedIn: s.SignedIn()}, counts.Views, nil
}
