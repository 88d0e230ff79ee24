package shop

import (
	"bytes"
	"context"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/pagecache"
	"storefront/store/pagecache/pagebody"
	"storefront/views"
)

// Which parts of a cached page are per visitor, and how they get there.
//
// Filled in on the server per request (hole punching), from what the page
// cache read for the visitor: the header's account area (name, cart count, unread
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
// web.SessionOf(c)), and what the page cache read for this visitor.
type pageVisit struct {
	c      echo.Context
	itemID int64
	view   *pagecache.ItemView
}

// fragment renders one hole of a cached page for the current visitor. A
// hole whose component is a pure function of one comparable view model
// returns that model too (else nil): its markup is remembered by model.
type fragment func(ctx context.Context, h *Handler, pv *pageVisit) (templ.Component, any, error)

// fragments renders each hole by name. To add a per-visitor part to item
// pages (the like box, say):
//  1. wrap its markup in the view with @Hole(views.HoleLike) { ... } and
//     add the name to views/holes.go;
//  2. if it needs Redis data (the count, the shopper's own like), add the
//     reads to the page cache's read round trip (pagecache's readVisit) and a
//     typed field to pagecache.ItemView;
//  3. add its renderer here, reading that field from pv.view.
//
// A hole without a renderer shows its anonymous version.
var fragments = map[string]fragment{
	views.HoleAccount: func(_ context.Context, _ *Handler, pv *pageVisit) (templ.Component, any, error) {
		v := web.ViewerOf(web.SessionOf(pv.c))
		return views.Account(v), v, nil
	},
	views.HoleFlash: func(_ context.Context, _ *Handler, pv *pageVisit) (templ.Component, any, error) {
		msg := web.SessionOf(pv.c).Flash
		return views.FlashMessage(msg, true), flashModel{msg}, nil
	},
	views.HoleLike: func(_ context.Context, _ *Handler, pv *pageVisit) (templ.Component, any, error) {
		s := web.SessionOf(pv.c)
		lv := pv.view.Like
		// The reads were made for the user the cookie claims; the session
		// has confirmed that user only if SignedIn.
		like := views.LikeState{ItemID: pv.itemID, Count: lv.Counts.Likes, Liked: s.SignedIn() && lv.Liked, SignedIn: s.SignedIn()}
		return views.LikeBox(like), like, nil
	},
	// The review form: a guest's is a link to sign in (no reads); a
	// signed-in shopper's carries their earlier review, read by primary
	// key from the database (Redis holds no copy of reviews).
	views.HoleReview: func(ctx context.Context, h *Handler, pv *pageVisit) (templ.Component, any, error) {
		s := web.SessionOf(pv.c)
		f := views.ReviewForm{ItemID: pv.itemID, SignedIn: s.SignedIn(), Rating: 5}
		if s.SignedIn() {
			r, ok, err := h.reviews.MyReview(ctx, pv.itemID, s.UserID)
			if err != nil {
				return nil, nil, err
			}
			if ok {
				f.Rating, f.Body, f.Editing, f.Hidden = r.Rating, r.Body, true, r.Hidden
			}
		}
		return views.ReviewBox(f), f, nil
	},
	views.HoleRecent: func(ctx context.Context, h *Handler, pv *pageVisit) (templ.Component, any, error) {
		names, err := h.catalog.ItemNames(ctx, pv.view.Recent)
		if err != nil {
			return nil, nil, err
		}
		items := make([]views.ItemCard, 0, len(pv.view.Recent))
		var key []byte
		for _, id := range pv.view.Recent {
			if id == pv.itemID {
				continue // the page's own item: the visitor is looking at it
			}
			if name, ok := names[id]; ok {
				items = append(items, views.ItemCard{ID: id, Name: name})
				key = append(strconv.AppendInt(key, id, 10), 0)
				key = append(append(key, name...), 0)
			}
		}
		return views.RecentlyViewed(items), recentModel(key), nil
	},
}

// flashModel is the flash hole's view model (the message, "" for none).
type flashModel struct{ msg string }

// recentModel is the recently viewed hole's view model: the ids and names
// it lists, in order, each followed by a NUL.
type recentModel string

// renderFragments renders every hole of page for this visitor, in the
// page's order; a hole rendered before from an equal view model is taken,
// compressed already, from the memo.
func (h *Handler) renderFragments(ctx context.Context, page *pagebody.Page, pv *pageVisit) (pagebody.Fills, error) {
	out := make(pagebody.Fills, page.HoleCount())
	var buf bytes.Buffer
	for i := range out {
		f, ok := fragments[page.HoleName(i)]
		if !ok {
			continue
		}
		comp, model, err := f(ctx, h, pv)
		if err != nil {
			return nil, err
		}
		if fill, ok := h.holes.Get(model, time.Time{}); model != nil && ok {
			out[i] = fill
			continue
		}
		buf.Reset()
		if err := comp.Render(ctx, &buf); err != nil {
			return nil, err
		}
		html := append(make([]byte, 0, buf.Len()), buf.Bytes()...)
		if model == nil {
			out[i] = pagebody.NewFill(html, pagebody.FillPlain)
			continue
		}
		out[i] = pagebody.NewFill(html, pagebody.FillCompressed)
		h.holes.Put(model, out[i], time.Time{})
	}
	return out, nil
}

// holeMemoMax bounds the memo of rendered holes (Handler.holes), kept by
// their view model (a comparable value whose type names the component:
// views are pure functions of their models), compressed for the gzip
// body. The fills are shared and never written to.
const holeMemoMax = 4096
