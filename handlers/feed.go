package handlers

import (
	"context"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// feedStore is the part of the store that the feed uses.
//
// The feed renders from the entries stored with it (store.FeedEntry:
// title, link, author, time), so it stands alone. Scores, vote counts and
// the reader's own vote belong to the article board; once it is merged,
// the rows can be joined with its articles by id (an ArticlesByID(ctx,
// ids, viewerID) on the store) to fill data-score, data-up, data-down and
// data-my-vote, which are zero until then.
type feedStore interface {
	FeedPage(ctx context.Context, userID int64, page, perPage int) ([]store.FeedEntry, int64, error)
}

// ShowFeed is GET /feed: articles by the people the reader follows,
// newest first, ARTICLES_PER_PAGE a page.
func (h *Handler) ShowFeed(c echo.Context) error {
	page, err := pageParam(c)
	if err != nil {
		return err
	}
	s := session(c)
	if !s.SignedIn() {
		return signInFirst(c, "/feed", "Sign in to see your feed.")
	}
	per := h.cfg.ArticlesPage
	var entries []store.FeedEntry
	var total int64
	if page <= maxPage {
		if entries, total, err = h.store.FeedPage(c.Request().Context(), s.UserID, page, per); err != nil {
			return err
		}
	}
	noStore(c)
	return render(c, http.StatusOK, views.FeedPage(h.chrome(c, "Your feed"), views.FeedData{
		Articles: feedArticles(entries),
		Total:    total,
		Pager:    pagerFor(page, per, int(total), func(p int) string { return "/feed?page=" + strconv.Itoa(p) }),
	}))
}
