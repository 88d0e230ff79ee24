package handlers

import (
	"bytes"
	"context"
	"errors"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// pageStore is the part of the store behind item pages and their cache.
type pageStore interface {
	VisitItem(ctx context.Context, req store.ItemVisit) (*store.Visit, error)
	FillPage(ctx context.Context, f store.PageFill) (*store.CachedPage, string, error)
	RevalidatePage(f store.PageFill)
	BuildPage(ctx context.Context, itemID int64, names []int64, render store.RenderFunc) (*store.CachedPage, error)
	FinishVisit(ctx context.Context, f *store.VisitFinish) error
	ItemNames(ctx context.Context, ids []int64) (map[int64]string, error)
}

// ShowItem is an item page, served from the page cache when the item is
// popular (DESIGN §10). The first Redis round trip reads and touches the
// session, records the view, checks the item's rank and fetches the
// cached page; on a hit that is all, and the per-visitor parts (holes) are
// rendered into the stored page. A miss renders the page once for an
// anonymous visitor and stores it; a stale page is served while it is
// rendered again in the background.
func (h *Handler) ShowItem(c echo.Context) error {
	id, err := itemIDParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	s := session(c)
	key, cacheable := store.PageKey(views.ItemURL(id), c.QueryParams())
	req := store.ItemVisit{ItemID: id, Token: s.Token, ClaimedUserID: s.claimedID()}
	if cacheable {
		req.PageKey = key
	}
	if s.Token == "" {
		req.NewToken = h.newToken()
	}
	v, err := h.store.VisitItem(ctx, req)
	if store.IsUnavailable(err) {
		return h.itemWithoutRedis(c, id)
	}
	if err != nil {
		return err
	}
	fin := &store.VisitFinish{ItemID: id, Optimistic: cacheable, Result: store.PageHit}
	h.adoptVisit(c, s, req, v, fin)
	recent := withFront(id, v.Recent, h.cfg.ViewedPerSession)
	lv, _ := v.Extras[store.VisitLike].(store.LikeVisit)
	fill := store.PageFill{Key: key, ItemID: id, Gen: v.Gen, Names: recent, Render: h.itemRenderer(lv.Counts.Views),
		Canonical: len(c.QueryParams()) == 0}
	page, err := h.itemPage(ctx, v, cacheable && v.Rank >= 0 && v.Rank < h.cfg.PageCacheTop, fill, fin)
	if errors.Is(err, store.ErrNotFound) {
		// Nothing is recorded and no session made for an item the
		// database does not know; only an orphaned list goes.
		fin.NewToken, fin.Token, fin.CountView, fin.Rendered, fin.Result = "", "", false, false, store.PageBypass
		if req.Token != "" && s.Token == "" {
			h.clearCookie(c, tokenCookie) // the unknown token
		}
		if ferr := h.store.FinishVisit(ctx, fin); ferr != nil {
			return ferr
		}
		return err
	}
	if err != nil {
		return err
	}
	if err := h.store.FinishVisit(ctx, fin); err != nil {
		return err
	}
	if fin.NewToken != "" {
		s.Token, s.loaded = fin.NewToken, true
		h.setCookie(c, tokenCookie, s.Token, 0)
	}
	return h.servePage(c, page, &pageVisit{c: c, itemID: id, recent: recent, visit: v}, fin.Result)
}

// itemPage returns the page to serve and sets fin.Result: the stored page
// when fresh (hit) or stale (served while rendered again in the
// background); a render shared with concurrent requests and stored (miss);
// or, when the page is not cacheable, a render that is not stored.
func (h *Handler) itemPage(ctx context.Context, v *store.Visit, cacheable bool, fill store.PageFill, fin *store.VisitFinish) (*store.CachedPage, error) {
	switch {
	case !cacheable:
		fin.Result, fin.Rendered = store.PageBypass, true
		return h.store.BuildPage(ctx, fill.ItemID, fill.Names, fill.Render)
	case v.Page != nil && v.Fresh:
		return v.Page, nil
	case v.Page != nil:
		fin.Result = store.PageStale
		h.store.RevalidatePage(fill)
		return v.Page, nil
	}
	fin.Result, fill.Finish = store.PageMiss, fin
	page, outcome, err := h.store.FillPage(ctx, fill)
	if outcome == store.FillStale {
		fin.Result = store.PageStale
	}
	return page, err
}

// adoptVisit applies what the first round trip learnt about the session
// and decides what FinishVisit must still write.
func (h *Handler) adoptVisit(c echo.Context, s *Session, req store.ItemVisit, v *store.Visit, fin *store.VisitFinish) {
	switch {
	case req.Token != "" && v.Session.Known:
		h.applyState(c, s, v.Session)
		if !v.Counted { // the item was not known to exist yet
			fin.Token, fin.CountView = s.Token, true
		}
	case req.Token != "":
		// A well-formed token the server does not know (evicted, signed
		// out, replayed): the visitor is anonymous and gets a new session.
		// The first round trip's view landed in a list of its own, which
		// is deleted so that the token leaves no state behind.
		s.Token, s.hasClaim, s.loaded = "", false, true
		h.clearCookie(c, userCookie)
		if v.Counted {
			fin.Orphan = req.Token
		} else {
			fin.CountView = true
		}
		fin.NewToken = h.newToken()
	case v.Created:
		s.Token, s.loaded = req.NewToken, true
		h.setCookie(c, tokenCookie, s.Token, 0)
	default:
		// The session is made once the database confirms the item.
		fin.NewToken, fin.CountView = req.NewToken, true
	}
}

// renderItem renders an item page as an anonymous visitor without a flash
// sees it: the version the page cache stores and shares with everyone.
// Everything per visitor is in a hole, filled in per request.
// The view count (read in the page's first round trip) is stored with the
// page: it is the same for everyone and a count up to PAGE_CACHE_TTL old is
// fine, whereas punched in per request it would change every response and
// defeat the ETag.
func (h *Handler) itemRenderer(viewCount int64) store.RenderFunc {
	return func(ctx context.Context, it store.Item) ([]byte, error) { return h.renderItem(ctx, it, viewCount) }
}

func (h *Handler) renderItem(ctx context.Context, it store.Item, viewCount int64) ([]byte, error) {
	var buf bytes.Buffer
	err := views.ItemPage(views.Chrome{Title: it.Name, FlashOK: true}, views.ItemData{
		Views:       viewCount,
		Item:        card(it),
		Description: it.Description,
		MaxQty:      min(it.Stock, int64(h.cfg.MaxLineQty)),
		Recent:      []views.ItemCard{card(it)},
	}).Render(ctx, &buf)
	return buf.Bytes(), err
}

// itemWithoutRedis serves an item page from the database alone while
// Redis is down (DESIGN §14): no session, no view, no cache.
func (h *Handler) itemWithoutRedis(c echo.Context, id int64) error {
	ctx := c.Request().Context()
	s := session(c)
	s.Token, s.hasClaim = "", false
	page, err := h.store.BuildPage(ctx, id, []int64{id}, h.itemRenderer(0))
	if err != nil {
		return err
	}
	h.log.Warn("item page served without Redis", "item", id)
	fin := &store.VisitFinish{ItemID: id, Result: store.PageBypass}
	_ = h.store.FinishVisit(ctx, fin) // counts the bypass; nothing to send
	return h.servePage(c, page, &pageVisit{c: c, itemID: id, recent: []int64{id}, visit: &store.Visit{}}, store.PageBypass)
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
