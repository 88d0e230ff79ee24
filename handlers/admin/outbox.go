package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/mail"
	"storefront/views"
)

// Outbox is the email outbox as the admin reads it.
type Outbox interface {
	Entries(ctx context.Context, limit, offset int) ([]mail.Entry, int, error)
	Entry(ctx context.Context, id int64) (mail.Entry, error)
	Sends() bool
	Resend(ctx context.Context, id int64) (mail.Entry, bool, error)
}

// outboxPerPage is the outbox page's size.
const outboxPerPage = 50

// OutboxList is GET /admin/outbox?page=: every message, newest first,
// with its status (queued, sent, failed or kept).
func (h *Handler) OutboxList(c echo.Context) error {
	page, err := web.PageParam(c)
	if err != nil {
		return err
	}
	d := views.OutboxData{Sends: h.outbox.Sends()}
	if page <= web.MaxPage {
		entries, total, err := h.outbox.Entries(c.Request().Context(), outboxPerPage, (page-1)*outboxPerPage)
		if err != nil {
			return err
		}
		d.Total = total
		for _, e := range entries {
			d.Rows = append(d.Rows, outboxRow(e))
		}
	}
	d.Pager = web.PagerFor(page, outboxPerPage, d.Total, listURL("/admin/outbox", url.Values{}))
	return web.Render(c, http.StatusOK, views.AdminOutboxPage(h.web.Chrome(c, "Outbox"), d))
}

// OutboxMessage is GET /admin/outbox/:id: one message as it was (or would
// be) sent.
func (h *Handler) OutboxMessage(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no message with that number.")
	}
	e, err := h.outbox.Entry(c.Request().Context(), id)
	if err != nil {
		return err
	}
	m := views.OutboxMessage{OutboxRow: outboxRow(e), Sends: h.outbox.Sends(), MessageID: e.MessageID, From: e.From,
		Date: e.CreatedAt.UTC().Format("Mon, 02 Jan 2006 15:04:05 -0700"), Text: e.Text, HTML: e.HTML}
	if !e.SentAt.IsZero() {
		m.Sent = web.When(e.SentAt)
	}
	return web.Render(c, http.StatusOK, views.AdminOutboxMessagePage(h.web.Chrome(c, e.Subject), m))
}

// OutboxResend is POST /admin/outbox/:id/resend: a failed message goes
// back in the queue and is sent again. Idempotent: a message already
// queued again, or sent, is left as it is (303 with a flash saying so).
// Without SMTP_URL it is a 422; an unknown message a 404.
func (h *Handler) OutboxResend(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no message with that number.")
	}
	e, resent, err := h.outbox.Resend(c.Request().Context(), id)
	switch {
	case errors.Is(err, mail.ErrNotSending):
		return web.Unprocessable(c, "No SMTP_URL is set: messages are kept here and never sent.")
	case err != nil:
		return err
	}
	back := "/admin/outbox/" + web.Itoa(id)
	if !resent {
		return h.web.Done(c, fmt.Sprintf("Message %d is %s: nothing to send again.", id, e.Status), back)
	}
	h.web.Audit(c, "send email again", "outbox "+web.Itoa(id), "to", e.To, "kind", e.Kind)
	return h.web.Done(c, fmt.Sprintf("Message %d is queued to be sent again.", id), back)
}

func outboxRow(e mail.Entry) views.OutboxRow {
	return views.OutboxRow{ID: e.ID, To: e.To, Subject: e.Subject, Kind: e.Kind, Status: e.Status, Attempts: e.Attempts,
		Created: web.When(e.CreatedAt), LastError: e.LastError}
}
