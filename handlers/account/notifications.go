package account

import (
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/notify"
	"storefront/views"
)

// ShowNotifications is GET /notifications: the recent notifications, the
// new ones marked. Showing changes nothing (a GET, or a link from another
// site, must not); the page's button posts to MarkNotificationsRead.
func (h *Handler) ShowNotifications(c echo.Context) error {
	s := web.SessionOf(c)
	notes, counts, err := h.notes.Notifications(c.Request().Context(), s.UserID)
	if err != nil {
		return err
	}
	d := views.NotificationsData{
		Votes:    counts[notify.NoteVote],
		Comments: counts[notify.NoteComment],
		Follows:  counts[notify.NoteFollower],
		Orders:   counts[notify.NoteOrder],
	}
	for _, n := range notes {
		d.Notes = append(d.Notes, views.NoteView{
			Kind: n.Kind, Actor: n.Actor, ArticleID: n.ArticleID, Title: n.Title, Dir: n.Dir, Reply: n.Reply, OrderID: n.OrderID, Status: n.Status,
			At: time.UnixMicro(int64(n.At * 1e6)), Age: web.AgeText(time.Since(time.UnixMicro(int64(n.At * 1e6)))), Unread: n.Unread,
		})
	}
	return web.Render(c, http.StatusOK, views.NotificationsPage(h.web.Chrome(c, "Notifications"), d))
}

// MarkNotificationsRead is POST /notifications/read: it clears the unread
// counts the page showed (its hidden fields), so that a notification that
// arrived since stays new.
func (h *Handler) MarkNotificationsRead(c echo.Context) error {
	s := web.SessionOf(c)
	seen := map[string]int64{}
	for _, kind := range notify.NoteKinds {
		v := c.FormValue(kind)
		if v == "" {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return web.BadRequest("The counts to mark read must be whole numbers.")
		}
		seen[kind] = n
	}
	if err := h.notes.MarkNotificationsRead(c.Request().Context(), s.UserID, seen); err != nil {
		return err
	}
	return web.Redirect(c, "/notifications")
}
