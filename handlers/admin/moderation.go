package admin

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/platform"
	"storefront/store/reviews"
	"storefront/views"
)

// Each hide and ban has its undo. An undo posted from the moderation page
// comes back to it; the forms elsewhere say where to go with next (a
// same-site path). Hiding a reported article or comment closes its
// reports; a moderator who finds nothing wrong dismisses them.

// HideArticle is POST /admin/articles/:id/hide: the article leaves
// every listing, group listing, feed and counter at once; its poster still
// sees it, marked as hidden by a moderator.
func (h *Handler) HideArticle(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	a, err := h.articles.HideArticle(c.Request().Context(), id, web.SessionOf(c).UserName)
	if err != nil {
		return web.ArticleNotFound(err)
	}
	h.web.Audit(c, "hide article", "article "+web.Itoa(id), "title", a.Title, "poster", a.Poster)
	return h.web.Done(c, fmt.Sprintf("Article %d is hidden.", id), web.LocalPath(c.FormValue("next"), views.ArticleBase(id)))
}

// UnhideArticle is POST /admin/articles/:id/unhide: the article is back
// exactly as it was before it was hidden, in every listing, group, feed
// and counter.
func (h *Handler) UnhideArticle(c echo.Context) error {
	id, err := web.ArticleIDParam(c)
	if err != nil {
		return err
	}
	a, err := h.articles.UnhideArticle(c.Request().Context(), id)
	if err != nil {
		return web.ArticleNotFound(err)
	}
	h.web.Audit(c, "unhide article", "article "+web.Itoa(id), "title", a.Title, "poster", a.Poster)
	return h.web.Done(c, fmt.Sprintf("Article %d is shown again.", id), undoneTo(c))
}

// HideComment is POST /admin/comments/:id/hide, where id is the
// comment's data-comment-id ("<article>-<number>"): the comment leaves the
// page and the count; its author sees that a moderator hid it.
func (h *Handler) HideComment(c echo.Context) error {
	articleID, commentID, ok := board.ParseCommentRef(c.Param("id"))
	if !ok {
		return web.NotFound(errNoComment)
	}
	cm, err := h.articles.HideComment(c.Request().Context(), articleID, commentID)
	if err != nil {
		return notFoundAs(err, errNoComment)
	}
	h.web.Audit(c, "hide comment", "comment "+c.Param("id"), "author", cm.User)
	return h.web.Done(c, "The comment is hidden.", web.LocalPath(c.FormValue("next"), views.ArticleBase(articleID)+"#comments"))
}

// UnhideComment is POST /admin/comments/:id/unhide: the comment is back on
// its article's page and in its count.
func (h *Handler) UnhideComment(c echo.Context) error {
	articleID, commentID, ok := board.ParseCommentRef(c.Param("id"))
	if !ok {
		return web.NotFound(errNoComment)
	}
	cm, err := h.articles.UnhideComment(c.Request().Context(), articleID, commentID)
	if err != nil {
		return notFoundAs(err, errNoComment)
	}
	h.web.Audit(c, "unhide comment", "comment "+c.Param("id"), "author", cm.User)
	return h.web.Done(c, "The comment is shown again.", undoneTo(c))
}

// HideReview is POST /admin/reviews/:id/hide, where id is the review's
// data-review-id ("<item>-<author's id>"): the review leaves the item's
// page, its rating and count (the cached pages are purged); its author
// sees that a moderator hid it.
func (h *Handler) HideReview(c echo.Context) error {
	itemID, userID, ok := reviews.ParseRef(c.Param("id"))
	if !ok {
		return web.NotFound(errNoReview)
	}
	rv, err := h.reviews.HideReview(c.Request().Context(), itemID, userID, web.SessionOf(c).UserName)
	if err != nil {
		return notFoundAs(err, errNoReview)
	}
	h.web.Audit(c, "hide review", "review "+rv.Ref(), "item", itemID, "author_id", userID)
	return h.web.Done(c, "The review is hidden.", web.LocalPath(c.FormValue("next"), "/admin/items/"+web.Itoa(itemID)+"#reviews"))
}

// UnhideReview is POST /admin/reviews/:id/unhide: the review is back on
// the item's page and in its rating.
func (h *Handler) UnhideReview(c echo.Context) error {
	itemID, userID, ok := reviews.ParseRef(c.Param("id"))
	if !ok {
		return web.NotFound(errNoReview)
	}
	rv, err := h.reviews.UnhideReview(c.Request().Context(), itemID, userID)
	if err != nil {
		return notFoundAs(err, errNoReview)
	}
	h.web.Audit(c, "unhide review", "review "+rv.Ref(), "item", itemID, "author_id", userID)
	return h.web.Done(c, "The review is shown again.", undoneTo(c))
}

// DismissReports is POST /admin/reports/:ref/dismiss, where ref is an
// article's id or a comment's "<article>-<number>": its open reports are
// closed without hiding it (later reports open it again).
func (h *Handler) DismissReports(c echo.Context) error {
	ref := c.Param("ref")
	if err := h.articles.DismissReports(c.Request().Context(), ref); err != nil {
		return notFoundAs(err, "There are no open reports on that.")
	}
	h.web.Audit(c, "dismiss reports", "reported "+ref)
	return h.web.Done(c, "The reports are dismissed.", "/admin/moderation")
}

// BanUser is POST /admin/users/:name/ban: every session of the
// account ends at once, it can no longer sign in or check out, and its
// orders stay.
func (h *Handler) BanUser(c echo.Context) error {
	u, n, err := h.accounts.BanUser(c.Request().Context(), c.Param("name"))
	if errors.Is(err, platform.ErrInvalid) {
		return web.Unprocessable(c, "Administrators cannot be banned.")
	}
	if err != nil {
		return notFoundAs(err, errNoUser)
	}
	h.web.Audit(c, "ban user", "user "+u.Username, "user_id", u.ID, "sessions_ended", n)
	return h.web.Done(c, fmt.Sprintf("%s is banned and was signed out of %s.", u.Username, views.Counted(int64(n), "session", "sessions")),
		views.UserURL(u.Username))
}

// UnbanUser is POST /admin/users/:name/unban: the account may sign in
// again (the sessions the ban ended stay ended).
func (h *Handler) UnbanUser(c echo.Context) error {
	u, _, err := h.accounts.UnbanUser(c.Request().Context(), c.Param("name"))
	if err != nil {
		return notFoundAs(err, errNoUser)
	}
	h.web.Audit(c, "unban user", "user "+u.Username, "user_id", u.ID)
	return h.web.Done(c, u.Username+" may sign in again.", undoneTo(c))
}

// moderationShown is how many entries of each kind the moderation page
// lists (the most recent; it says how many there are in all).
const moderationShown = 100

// Moderation is GET /admin/moderation: what readers reported, each with
// the buttons that hide it or dismiss its reports, then what is hidden
// (articles, comments, reviews) and who is banned, the most recent first,
// each row with the button that undoes it.
func (h *Handler) Moderation(c echo.Context) error {
	ctx := c.Request().Context()
	reported, nReported, err := h.articles.OpenReports(ctx, moderationShown)
	if err != nil {
		return err
	}
	arts, nArts, err := h.articles.HiddenArticles(ctx, moderationShown)
	if err != nil {
		return err
	}
	comments, nComments, err := h.articles.HiddenComments(ctx, moderationShown)
	if err != nil {
		return err
	}
	revs, nRevs, err := h.reviews.HiddenReviews(ctx, moderationShown)
	if err != nil {
		return err
	}
	banned, nBanned, err := h.accounts.BannedUsers(ctx, moderationShown)
	if err != nil {
		return err
	}
	d := views.ModerationData{Reports: reportRows(reported), ReportTotal: nReported, ArticleTotal: nArts, CommentTotal: nComments, ReviewTotal: int64(nRevs), UserTotal: int64(nBanned)}
	for _, a := range arts {
		d.Articles = append(d.Articles, views.ModerationRow{ID: web.Itoa(a.ID), Title: a.Title, Link: views.ArticleBase(a.ID),
			Author: a.Poster, By: a.HiddenBy, When: web.When(a.HiddenAt)})
	}
	for _, cm := range comments {
		d.Comments = append(d.Comments, views.ModerationRow{ID: board.CommentRef(cm.ArticleID, cm.ID), Title: cm.ArticleTitle,
			Link: views.ArticleBase(cm.ArticleID) + "#comment-" + web.Itoa(cm.ID), Author: cm.User, Text: cm.Body, When: web.When(cm.HiddenAt)})
	}
	for _, r := range revs {
		d.Reviews = append(d.Reviews, views.ModerationRow{ID: r.Ref(), Title: r.ItemName, Link: "/admin/items/" + web.Itoa(r.ItemID) + "#reviews",
			Author: r.Username, Text: fmt.Sprintf("%d/5 · %s", r.Rating, r.Body), By: r.HiddenBy, When: web.When(r.HiddenAt)})
	}
	for _, u := range banned {
		d.Users = append(d.Users, views.ModerationRow{ID: u.Username, Title: u.Username, Link: views.UserURL(u.Username), When: web.When(u.BannedAt)})
	}
	return web.Render(c, http.StatusOK, views.ModerationPage(h.web.Chrome(c, "Moderation"), d))
}

// The moderation routes' 404 messages.
const (
	errNoComment = "There is no comment with that number."
	errNoReview  = "There is no such review."
	errNoUser    = "There is no one by that name."
)

// notFoundAs answers platform.ErrNotFound with the route's own 404.
func notFoundAs(err error, msg string) error {
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound(msg)
	}
	return err
}

// undoneTo is where an undo goes back to: the form's next, else the
// moderation page it is usually posted from.
func undoneTo(c echo.Context) string {
	return web.LocalPath(c.FormValue("next"), "/admin/moderation")
}

// reportRows are the reported things as the moderation page lists them.
func reportRows(things []board.ReportedThing) []views.ReportRow {
	out := make([]views.ReportRow, 0, len(things))
	for _, t := range things {
		r := views.ReportRow{Ref: t.Ref, Kind: "article", Title: t.Title, Link: views.ArticleBase(t.ArticleID), Author: t.Author,
			Text: t.Text, When: web.When(t.Latest), Hide: "/admin/articles/" + t.Ref + "/hide"}
		if t.CommentID > 0 {
			r.Kind, r.Link, r.Hide = "comment", views.ArticleBase(t.ArticleID)+"#comment-"+web.Itoa(t.CommentID), "/admin/comments/"+t.Ref+"/hide"
		}
		for _, rp := range t.Reports {
			r.Reports = append(r.Reports, views.ReportLine{User: rp.User, Reason: views.ReportReasonLabel(rp.Reason), Note: rp.Note, When: web.When(rp.At)})
		}
		out = append(out, r)
	}
	return out
}
