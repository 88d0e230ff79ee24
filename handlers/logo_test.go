package handlers_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"storefront/handlers/apptest"
)

// uploadFile posts data as the multipart field image to path.
func (c *client) uploadFile(path, name string, data []byte) apptest.Response {
	c.a.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("image", name)
	_, _ = io.Copy(fw, bytes.NewReader(data))
	_ = mw.Close()
	req, _ := http.NewRequest("POST", c.a.srv.URL+path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", c.a.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.Do(req)
}

var logoSrc = regexp.MustCompile(`data-testid="shop-logo" src="(/media/([0-9a-f]+)-[^"]+)"`)

// TestShopLogo: the merchant uploads a logo and every page's header shows
// it at once (cached pages too), served from the media store; a file that
// is not a picture is a 422 that keeps the logo; a new logo replaces the
// old one, whose picture goes; removing it leaves the name alone. Each
// change is in the audit log.
func TestShopLogo(t *testing.T) {
	a := newApp(t, nil, nil)
	owner := a.client()
	owner.signInAdmin()
	anon := a.client()
	home := anon.MustGet("/", http.StatusOK).Body
	anon.MustGet("/items/5", http.StatusOK)
	if strings.Contains(home, `data-testid="shop-logo"`) {
		t.Fatal("a logo before one was uploaded")
	}
	mustContain(t, owner.MustGet("/admin/settings", http.StatusOK).Body, `data-testid="no-logo"`, `action="/admin/settings/logo"`)

	res := owner.uploadFile("/admin/settings/logo", "logo.png", pngBytes(t, testPicture(400, 100)))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %.300s", res.Status, res.Body)
	}
	var first string
	for _, path := range []string{"/", "/items/5"} {
		m := logoSrc.FindStringSubmatch(anon.MustGet(path, http.StatusOK).Body)
		if m == nil {
			t.Fatalf("%s shows no logo after the upload", path)
		}
		first = m[2]
		img := anon.MustGet(m[1], http.StatusOK)
		if ct := img.Header.Get("Content-Type"); !strings.HasPrefix(ct, "image/") {
			t.Errorf("logo served as %q", ct)
		}
	}
	mustContain(t, owner.MustGet("/admin/settings", http.StatusOK).Body, `data-testid="logo-preview"`, `data-testid="remove-logo"`)

	bad := owner.uploadFile("/admin/settings/logo", "logo.png", []byte("<svg onload=alert(1)>"))
	if bad.Status != http.StatusUnprocessableEntity || !strings.Contains(bad.Body, "not a JPEG, PNG, GIF or WebP picture") {
		t.Errorf("a file that is not a picture: %d %q", bad.Status, textOf(bad.Body, "form-alert"))
	}
	if m := logoSrc.FindStringSubmatch(anon.MustGet("/", http.StatusOK).Body); m == nil || m[2] != first {
		t.Error("a refused upload changed the logo")
	}

	owner.uploadFile("/admin/settings/logo", "second.png", pngBytes(t, testPicture(300, 150)))
	m := logoSrc.FindStringSubmatch(anon.MustGet("/", http.StatusOK).Body)
	if m == nil || m[2] == first {
		t.Fatal("the second logo did not replace the first")
	}
	var n int
	if err := a.store.DB().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM image_renditions WHERE hash = $1`, first).Scan(&n); err != nil || n != 0 {
		t.Errorf("the replaced logo keeps %d stored sizes (%v)", n, err)
	}

	owner.MustPost("/admin/settings/logo/delete", nil, http.StatusSeeOther)
	if strings.Contains(anon.MustGet("/", http.StatusOK).Body, `data-testid="shop-logo"`) {
		t.Error("the header shows a logo after it was removed")
	}
	if got := a.auditCount("settings.logo"); got != 3 {
		t.Errorf("%d logo changes in the audit log, want 3", got)
	}
}
