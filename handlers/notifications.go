package handlers

import (
	"context"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/store"
	"storefront/views"
)

// notifyStore is the part of the store that notifications use.
type notifyStore interface {
	Notifications(ctx context.Context, userID int64) ([]store.Note, map[string]int64, error)
}

// ShowNotifications is GET /notifications: the recent notifications, the
// new ones marked, after which they count as read.
func (h *Handler) ShowNotifications(c echo.Context) error {
	s := session(c)
	if !s.SignedIn() {
		return signInFirst(c, "/notifications", "Sign in to see your notifications.")
	}
	notes, counts, err := h.store.Notifications(c.Request().Context(), s.UserID)
	if err != nil {
		return err
	}
	s.Unread = 0 // read just now: the header says so on this very page
	d := views.NotificationsData{
		Votes:    counts[store.NoteVote],
		Comments: counts[store.NoteComment],
		Follows:  counts[store.NoteFollower],
	}
	for _, n := range notes {
		d.Notes = append(d.Notes, views.NoteView{
			Kind: n.Kind, Actor: n.Actor, ArticleID: n.ArticleID, Title: n.Title, Dir: n.Dir,
			At: time.UnixMicro(int64(n.At * 1e6)), Unread: n.Unread,
		})
	}
	noStore(c)
	return render(c, http.StatusOK, views.NotificationsPage(h.chrome(c, "Notifications"), d))
}
