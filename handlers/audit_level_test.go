package handlers_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"storefront/handlers"
	"storefront/handlers/web"
	"storefront/wiring/wiringtest"
)

// TestAuditLinesKeptAtLogLevelWarn: with the logger main builds for
// LOG_LEVEL=warn, the request lines go but the admin's audit lines stay,
// marked AUDIT.
func TestAuditLinesKeptAtLogLevelWarn(t *testing.T) {
	st := wiringtest.New(t)
	logs := &logBuffer{}
	h, err := handlers.New(testConfig(t), st, slog.New(slog.NewJSONHandler(logs, web.LogOptions(slog.LevelWarn))))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h.Router())
	t.Cleanup(srv.Close)
	a := &app{t: t, store: st, h: h, srv: srv}
	admin := a.client()
	admin.signInAdmin()
	admin.MustPost("/admin/cache/purge", url.Values{"all": {"1"}}, http.StatusSeeOther)
	audits := logs.lines("admin action")
	if len(audits) != 1 || audits[0]["action"] != "purge all pages" || audits[0]["level"] != "AUDIT" {
		t.Fatalf("audit lines at LOG_LEVEL=warn: %v", audits)
	}
	if n := len(logs.lines("request")); n != 0 {
		t.Fatalf("%d request lines at LOG_LEVEL=warn", n)
	}
}
