package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// ShowItem is an item page. It records the view (the book's update_token)
// only for items that exist, and reads the session's state, its recently
// viewed list and the item in as few round trips as it can: one Redis read,
// one SQL query, one Redis write.
func (h *Handler) ShowItem(c echo.Context) error {
	id, err := itemIDParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	s := session(c)
	var recent []int64
	if s.Token != "" {
		st, ids, err := h.store.SessionWithRecent(ctx, s.Token, s.claimedID())
		if err != nil {
			return err
		}
		h.applyState(c, s, st)
		recent = ids
	}
	rows, err := h.store.Items(ctx, append([]int64{id}, recent...))
	if err != nil {
		return err
	}
	it, ok := rows[id]
	if !ok {
		return store.ErrNotFound
	}
	if err := h.recordView(c, s, id); err != nil {
		return err
	}
	like, viewCount, err := h.likeState(c, id)
	if err != nil {
		return err
	}
	noStore(c)
	return render(c, http.StatusOK, views.ItemPage(h.chrome(c, it.Name), views.ItemData{
		Item:        card(it),
		Description: it.Description,
		MaxQty:      min(it.Stock, int64(h.cfg.MaxLineQty)),
		Recent:      cards(rows, withFront(id, recent, h.cfg.ViewedPerSession)),
		Views:       viewCount,
		Like:        like,
	}))
}

// recordView runs update_token for the view, creating a guest session for
// a visitor that has none.
func (h *Handler) recordView(c echo.Context, s *Session, itemID int64) error {
	ctx := c.Request().Context()
	if s.Token == "" {
		token := h.newToken()
		if err := h.store.NewSessionView(ctx, token, itemID); err != nil {
			return err
		}
		s.Token = token
		h.setCookie(c, tokenCookie, token, 0)
		return nil
	}
	return h.store.UpdateToken(ctx, s.Token, !s.SignedIn(), itemID)
}

// withFront puts id first in ids without duplicates, keeping at most n.
func withFront(id int64, ids []int64, n int) []int64 {
	out := []int64{id}
	for _, v := range ids {
		if v != id && len(out) < n {
			out = append(out, v)
		}
	}
	return out
}
