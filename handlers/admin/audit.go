package admin

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/audit"
	"storefront/views"
)

// AuditLog reads the audit log.
type AuditLog interface {
	List(ctx context.Context, f audit.Filter) ([]audit.Row, bool, error)
}

// auditShown is how many entries a page of the audit log shows.
const auditShown = 50

// Audit is GET /admin/audit (actor, kind, from, to as YYYY-MM-DD, UTC, to
// inclusive; before, the paging cursor): who changed what, newest first.
// A date that does not parse is a 422. Nothing here changes an entry.
func (h *Handler) Audit(c echo.Context) error {
	q := c.QueryParams()
	d := views.AuditData{Actor: q.Get("actor"), Kind: q.Get("kind"), From: q.Get("from"), To: q.Get("to")}
	f := audit.Filter{Actor: d.Actor, Kind: d.Kind, Limit: auditShown}
	var bad bool
	if d.From != "" {
		t, err := time.Parse(time.DateOnly, d.From)
		bad = bad || err != nil
		f.From = t
	}
	if d.To != "" {
		t, err := time.Parse(time.DateOnly, d.To)
		bad = bad || err != nil
		f.To = t.AddDate(0, 0, 1)
	}
	if b := q.Get("before"); b != "" {
		id, err := strconv.ParseInt(b, 10, 64)
		bad = bad || err != nil || id <= 0
		f.BeforeID = id
	}
	if bad {
		d.Error = "Give dates as YYYY-MM-DD."
		return web.Render(c, http.StatusUnprocessableEntity, views.AuditPage(h.web.Chrome(c, "Audit log"), d))
	}
	rows, more, err := h.audit.List(c.Request().Context(), f)
	if err != nil {
		return err
	}
	for _, r := range rows {
		d.Rows = append(d.Rows, views.AuditRow{ID: r.ID, When: r.At.Format("2 Jan 2006 15:04:05 UTC"), Actor: r.ActorName,
			Kind: r.Kind, Target: r.Target, Addr: r.Addr, Before: auditFields(r.Before), After: auditFields(r.After)})
	}
	if more {
		next := url.Values{}
		for _, k := range []string{"actor", "kind", "from", "to"} {
			if v := q.Get(k); v != "" {
				next.Set(k, v)
			}
		}
		next.Set("before", strconv.FormatInt(rows[len(rows)-1].ID, 10))
		d.Next = "/admin/audit?" + next.Encode()
	}
	return web.Render(c, http.StatusOK, views.AuditPage(h.web.Chrome(c, "Audit log"), d))
}

// auditFields lists an entry's fields by name, each value as JSON writes
// it (strings without their quotes).
func auditFields(f audit.Fields) []views.AuditField {
	var out []views.AuditField
	for k, v := range f {
		text := ""
		if s, ok := v.(string); ok {
			text = s
		} else if b, err := json.Marshal(v); err == nil {
			text = string(b)
		}
		out = append(out, views.AuditField{Name: k, Value: text})
	}
	slices.SortFunc(out, func(a, b views.AuditField) int {
		if a.Name < b.Name {
			return -1
		}
		if a.Name > b.Name {
			return 1
		}
		return 0
	})
	return out
}
