package handlers

import (
	"bytes"
	"context"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// Which parts of a cached page are per visitor, and how they get there.
//
// Filled in on the server per request (hole punching), in the page's one
// Redis round trip: the header's account area (name, cart count, unread
// count), the flash, the recently viewed list, and any later per-visitor
// box (likes). They must be right with JavaScript off, so JavaScript cannot
// bring them; and they are small, so rendering them costs microseconds.
//
// Fetched by JavaScript (static/js/live.js): the live price and stock from
// /api/items/:id. They are not per visitor (so not a privacy matter) and
// change on their own clock during a sale; without JavaScript the page
// shows them as rendered, which is never older than an edit or a checkout
// of the item, since both purge its pages.

// pageVisit is what a fragment may use: the request, its session (through
// session(c)), and what the page's first round trip read.
type pageVisit struct {
	c      echo.Context
	itemID int64
	recent []int64 // the visitor's recently viewed items, this one first
	visit  *store.Visit
}

// fragment renders one hole of a cached page for the current visitor.
type fragment func(ctx context.Context, h *Handler, pv *pageVisit) (templ.Component, error)

// fragments renders each hole by name. To add a per-visitor part to item
// pages (the like box, say):
//  1. wrap its markup in the view with @Hole(views.HoleLike) { ... } and
//     add the name to views/holes.go;
//  2. if it needs Redis data (the count, the shopper's own like), register
//     a visit reader in the store with addVisitReader, so that the reads
//     ride the page's first round trip and a hit stays one round trip;
//  3. add its renderer here, reading pv.visit.Extras[name].
//
// A hole without a renderer shows its anonymous version.
var fragments = map[string]fragment{
	views.HoleAccount: func(_ context.Context, _ *Handler, pv *pageVisit) (templ.Component, error) {
		return views.Account(viewer(session(pv.c))), nil
	},
	views.HoleFlash: func(_ context.Context, _ *Handler, pv *pageVisit) (templ.Component, error) {
		return views.FlashMessage(session(pv.c).Flash, true), nil
	},
	views.HoleLike: func(_ context.Context, _ *Handler, pv *pageVisit) (templ.Component, error) {
		s := session(pv.c)
		lv, _ := pv.visit.Extras[store.VisitLike].(store.LikeVisit)
		// The reads were made for the user the cookie claims; the session
		// has confirmed that user only if SignedIn.
		like := views.LikeState{ItemID: pv.itemID, Count: lv.Counts.Likes, Liked: s.SignedIn() && lv.Liked, SignedIn: s.SignedIn()}
		return views.LikeBox(like), nil
	},
	views.HoleRecent: func(ctx context.Context, h *Handler, pv *pageVisit) (templ.Component, error) {
		names, err := h.store.ItemNames(ctx, pv.recent)
		if err != nil {
			return nil, err
		}
		items := make([]views.ItemCard, 0, len(pv.recent))
		for _, id := range pv.recent {
			if name, ok := names[id]; ok {
				items = append(items, views.ItemCard{ID: id, Name: name})
			}
		}
		return views.RecentlyViewed(items), nil
	},
}

// renderFragments renders every hole of page for this visitor.
func (h *Handler) renderFragments(ctx context.Context, page *store.CachedPage, pv *pageVisit) (map[string][]byte, error) {
	out := map[string][]byte{}
	var buf bytes.Buffer
	for _, name := range page.Holes() {
		f, ok := fragments[name]
		if !ok {
			continue
		}
		comp, err := f(ctx, h, pv)
		if err != nil {
			return nil, err
		}
		buf.Reset()
		if err := comp.Render(ctx, &buf); err != nil {
			return nil, err
		}
		out[name] = append(make([]byte, 0, buf.Len()), buf.Bytes()...)
	}
	return out, nil
}
