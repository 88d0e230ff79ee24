package board

import (
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/views"
)

// maxReportNote is the longest note a report carries, in characters.
const maxReportNote = 500

// Readers report an article or a comment to the moderators, once each,
// with a reason (and a note, needed for "other"), at most REPORT_RATE per
// reader. Their own posts they edit or delete instead; what a moderator
// hid or its author deleted is gone already.

// reported is what a report names: an article or one of its comments,
// read for the form's quote.
type reported struct {
	article board.Article
	comment board.Comment // ID 0 for the article itself
}

// report reads what the report route names (:id or :ref) as the reader
// may see it, or answers why it cannot be reported.
func (h *Handler) report(c echo.Context, ofComment bool) (reported, error) {
	var r reported
	articleID, n := int64(0), int64(0)
	var err error
	if ofComment {
		articleID, n, err = commentParam(c)
	} else {
		articleID, err = web.ArticleIDParam(c)
	}
	if err != nil {
		return r, err
	}
	ctx := c.Request().Context()
	s := web.SessionOf(c)
	if r.article, _, err = h.articles.ArticleWithComments(ctx, articleID, 0); err != nil || r.article.Hidden {
		return r, web.ArticleNotFound(platform.ErrNotFound)
	}
	author := r.article.PosterID
	if ofComment {
		r.comment, err = h.articles.CommentByID(ctx, articleID, n)
		if err != nil || r.comment.Hidden || r.comment.Deleted {
			return r, web.NotFound("There is no such comment.")
		}
		author = r.comment.UserID
	}
	if author == s.UserID {
		return r, reportRefusal(board.ErrOwnPost)
	}
	return r, nil
}

// reportRefusal answers a refused report.
func reportRefusal(err error) error {
	switch {
	case errors.Is(err, board.ErrOwnPost):
		return echo.NewHTTPError(http.StatusForbidden, "You cannot report what you posted yourself; you can edit or delete it for 15 minutes after posting.")
	case errors.Is(err, board.ErrReported):
		return echo.NewHTTPError(http.StatusConflict, "You have reported this already. A moderator will look at it.")
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is nothing there to report.")
	}
	return err
}

// reportPage is the report form for r, as typed so far.
func (h *Handler) reportPage(c echo.Context, status int, r reported, reason, note string, errs map[string]string) error {
	d := views.ReportData{Kind: "article", Title: r.article.Title, Author: r.article.Poster, Back: views.ArticleBase(r.article.ID),
		Action: views.ArticleBase(r.article.ID) + "/report", Reasons: board.ReportReasons, Reason: reason, Note: note, Errors: errs}
	if r.comment.ID > 0 {
		ref := board.CommentRef(r.article.ID, r.comment.ID)
		d.Kind, d.Quote, d.Author = "comment", r.comment.Body, r.comment.User
		d.Back, d.Action = views.ArticleBase(r.article.ID)+"#comment-"+web.Itoa(r.comment.ID), views.CommentReportURL(ref)
	}
	return web.Render(c, status, views.ReportPage(h.web.Chrome(c, "Report"), d))
}

// ReportArticleForm is GET /articles/:id/report.
func (h *Handler) ReportArticleForm(c echo.Context) error { return h.reportForm(c, false) }

// ReportCommentForm is GET /comments/:ref/report.
func (h *Handler) ReportCommentForm(c echo.Context) error { return h.reportForm(c, true) }

// ReportArticle is POST /articles/:id/report (reason, note).
func (h *Handler) ReportArticle(c echo.Context) error { return h.sendReport(c, false) }

// ReportComment is POST /comments/:ref/report (reason, note).
func (h *Handler) ReportComment(c echo.Context) error { return h.sendReport(c, true) }

func (h *Handler) reportForm(c echo.Context, ofComment bool) error {
	r, err := h.report(c, ofComment)
	if err != nil {
		return err
	}
	return h.reportPage(c, http.StatusOK, r, "", "", nil)
}

func (h *Handler) sendReport(c echo.Context, ofComment bool) error {
	r, err := h.report(c, ofComment)
	if err != nil {
		return err
	}
	reason, note := c.FormValue("reason"), cleanText(c.FormValue("note"))
	errs := map[string]string{}
	if !board.IsReportReason(reason) {
		errs["reason"] = "Choose what is wrong with it."
	}
	switch {
	case utf8.RuneCountInString(note) > maxReportNote:
		errs["note"] = "A note can be at most 500 characters long."
	case note != "" && web.CheckText(note, "note") != "":
		errs["note"] = web.CheckText(note, "note")
	case note == "" && reason == board.ReasonOther:
		errs["note"] = "Say what is wrong in the note."
	}
	if len(errs) > 0 {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]any{"error": "Some fields need another look.", "fields": errs})
		}
		return h.reportPage(c, http.StatusUnprocessableEntity, r, reason, note, errs)
	}
	s := web.SessionOf(c)
	if err := h.web.Limit(c, keys.RateReport, web.Itoa(s.UserID), h.cfg.Report, "You have sent several reports recently."); err != nil {
		return err
	}
	err = h.articles.ReportPost(c.Request().Context(), board.NewReport{ArticleID: r.article.ID, CommentID: r.comment.ID,
		UserID: s.UserID, User: s.UserName, Reason: reason, Note: note})
	if err != nil {
		return reportRefusal(err)
	}
	back := views.ArticleBase(r.article.ID)
	if r.comment.ID > 0 {
		back += "#comment-" + web.Itoa(r.comment.ID)
	}
	return h.web.Done(c, "Thank you. A moderator will look at your report.", back)
}
