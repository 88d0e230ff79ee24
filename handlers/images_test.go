package handlers_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"storefront/handlers"
	"storefront/handlers/apptest"
	"storefront/store/media"
)

// upload posts a file as the admin item form's image field.
func (c *client) upload(itemID string, name string, data io.Reader) apptest.Response {
	c.a.t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fw, _ := mw.CreateFormFile("image", name)
		_, err := io.Copy(fw, data)
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, _ := http.NewRequest("POST", c.a.srv.URL+"/admin/items/"+itemID+"/images", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", c.a.srv.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return c.Do(req)
}

// testPicture is an opaque w x h picture with a gradient.
func testPicture(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{uint8(x * 255 / w), uint8(y * 255 / h), 120, 255})
		}
	}
	return img
}

func pngBytes(t *testing.T, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// jpegWithComment is a JPEG carrying a comment segment, as cameras carry
// EXIF: it must not survive re-encoding.
func jpegWithComment(t *testing.T, comment string) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, testPicture(900, 600), nil); err != nil {
		t.Fatal(err)
	}
	b := buf.Bytes()
	seg := []byte{0xFF, 0xFE, 0, 0}
	binary.BigEndian.PutUint16(seg[2:], uint16(len(comment)+2))
	seg = append(seg, comment...)
	return append(append(append([]byte{}, b[:2]...), seg...), b[2:]...)
}

// pngBomb is a valid PNG header claiming 50,000 x 50,000 pixels (2.5
// gigapixels) in a file of a few dozen bytes.
func pngBomb() []byte { return pngClaiming(50_000, 50_000) }

// pngClaiming is a PNG whose header claims w x h pixels, with one tiny
// IDAT: refused pictures must be refused from the header alone.
func pngClaiming(w, h uint32) []byte {
	var b bytes.Buffer
	b.Write([]byte("\x89PNG\r\n\x1a\n"))
	chunk := func(typ string, data []byte) {
		binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

func imageApp(t *testing.T, maxBytes int64) (*app, *client) {
	a := newApp(t, nil, func(c *handlers.Config) { c.MaxImageBytes = maxBytes })
	admin := a.client()
	admin.signInAdmin()
	return a, admin
}

func TestImageUploadServedWithSrcset(t *testing.T) {
	a, admin := imageApp(t, 0)
	res := admin.upload("3", "photo.jpg", bytes.NewReader(jpegWithComment(t, "SECRET-GPS-51.5N")))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	imgs, err := a.store.Media.ItemImages(t.Context(), 3)
	if err != nil || len(imgs) != 1 {
		t.Fatalf("stored %v %v", imgs, err)
	}
	// 900 px wide: 320 and 640, then its own 900; never upscaled to 1280.
	var widths []int
	for _, s := range imgs[0].Sizes {
		widths = append(widths, s.Width)
	}
	if len(widths) != 3 || widths[0] != 320 || widths[1] != 640 || widths[2] != 900 {
		t.Fatalf("widths %v", widths)
	}
	shopper := a.client()
	page := shopper.Get("/items/3")
	tags := regexp.MustCompile(`<img[^>]*data-testid="item-image"[^>]*>`).FindAllString(page.Body, -1)
	if len(tags) != 1 {
		t.Fatalf("%d item-image tags", len(tags))
	}
	for _, want := range []string{`-320.jpg 320w`, `-640.jpg 640w`, `-900.jpg 900w`, `width="900"`, `height="600"`, `sizes="`, `alt="`, `loading="eager"`} {
		if !strings.Contains(tags[0], want) {
			t.Errorf("item-image lacks %s: %s", want, tags[0])
		}
	}
	src := regexp.MustCompile(`src="(/media/[0-9a-f]+-320\.jpg)"`).FindStringSubmatch(tags[0])
	if src == nil {
		t.Fatalf("no src: %s", tags[0])
	}
	media := shopper.Get(src[1])
	if media.Status != 200 || media.Header.Get("Content-Type") != "image/jpeg" ||
		media.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" || media.Header.Get("ETag") == "" {
		t.Fatalf("media: %d %v", media.Status, media.Header)
	}
	if media.Header.Get("Set-Cookie") != "" {
		t.Error("a picture sets a cookie")
	}
	got, err := jpeg.Decode(strings.NewReader(media.Body))
	if err != nil || got.Bounds().Dx() != 320 || got.Bounds().Dy() != 213 {
		t.Fatalf("decoded %v %v", err, got.Bounds())
	}
	for _, s := range imgs[0].Sizes {
		body := shopper.Get("/media/" + imgs[0].Hash + "-" + itoa(int64(s.Width)) + ".jpg").Body
		if strings.Contains(body, "SECRET-GPS") {
			t.Errorf("width %d keeps the upload's metadata", s.Width)
		}
	}
	req, _ := http.NewRequest("GET", a.srv.URL+src[1], nil)
	req.Header.Set("If-None-Match", media.Header.Get("ETag"))
	if res := shopper.Do(req); res.Status != http.StatusNotModified || res.Body != "" {
		t.Errorf("If-None-Match: %d", res.Status)
	}
	for _, bad := range []string{"/media/zz-320.jpg", "/media/" + imgs[0].Hash + "-321.jpg", "/media/" + imgs[0].Hash + "-320.png", "/media/..%2Fshop.db"} {
		if res := shopper.Get(bad); res.Status != 404 {
			t.Errorf("%s: %d", bad, res.Status)
		}
	}
	// Cards on listings carry the main picture as item-thumb.
	list := shopper.Get("/items?q=" + url.QueryEscape(itemName(t, a, 3)))
	thumb := regexp.MustCompile(`<article[^>]*data-item-id="3"[^>]*>\s*<img[^>]*data-testid="item-thumb"[^>]*>`).FindString(list.Body)
	if !strings.Contains(thumb, `srcset="/media/`+imgs[0].Hash+`-320.jpg 320w`) || !strings.Contains(thumb, `loading="lazy"`) {
		t.Errorf("card thumb: %q", thumb)
	}
}

func itemName(t *testing.T, a *app, id int64) string {
	it, err := a.store.Catalog.Item(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return it.Name
}

// TestImageUploadRefusesHostileFiles: each gets 422 with a reason and
// nothing is stored.
func TestImageUploadRefusesHostileFiles(t *testing.T) {
	a, admin := imageApp(t, 0)
	good := pngBytes(t, testPicture(400, 300))
	var gifJS bytes.Buffer
	gif.Encode(&gifJS, testPicture(40, 40), nil)
	tests := []struct {
		name string
		body io.Reader
		want string
	}{
		{"not an image", strings.NewReader("hello, I am a text file\n"), "not a JPEG, PNG, GIF or WebP"},
		{"empty", strings.NewReader(""), "not a JPEG, PNG, GIF or WebP"},
		{"truncated", bytes.NewReader(good[:len(good)/2]), "damaged"},
		{"decompression bomb", bytes.NewReader(pngBomb()), "too many pixels"},
		// Within the pixel count, but no JPEG can hold its renditions.
		{"a 1 x 40,000,000 strip", bytes.NewReader(pngClaiming(1, 40_000_000)), "too long or too tall"},
		{"a 20,000 x 100 banner", bytes.NewReader(pngClaiming(20_000, 100)), "too long or too tall"},
		{"50 MB", io.LimitReader(zeroes{}, 50<<20), "larger than 10 MB"},
		{"polyglot PNG+HTML", bytes.NewReader(append(append([]byte{}, good...), "<html><script>alert(1)</script>"...)), "something besides"},
		{"polyglot PNG+ZIP", bytes.NewReader(append(append([]byte{}, good...), "PK\x03\x04zipzipzip"...)), "something besides"},
		{"polyglot GIF+JS", bytes.NewReader(append([]byte("GIF89a/*"), []byte("*/=alert(1);<script>")...)), ""},
		{"polyglot GIF with trailing script", bytes.NewReader(append(gifJS.Bytes(), "<script>x</script>"...)), "something besides"},
		{"svg", strings.NewReader(`<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>`), "not a JPEG"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := admin.upload("4", "x.png", tc.body)
			if res.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", res.Status)
			}
			if got := textOf(res.Body, "field-error"); !strings.Contains(got, tc.want) {
				t.Errorf("message %q, want %q", got, tc.want)
			}
			if imgs, err := a.store.Media.ItemImages(t.Context(), 4); err != nil || len(imgs) != 0 {
				t.Errorf("stored %v %v", imgs, err)
			}
		})
	}
	// Sent as JSON: the same refusal.
	if res := admin.upload("4", "x", strings.NewReader("nope")); res.Status != 422 {
		t.Errorf("status %d", res.Status)
	}
	// The ordinary body limit still holds everywhere else.
	big := url.Values{"name": {strings.Repeat("x", 100_000)}}
	if res := admin.Post("/admin/items/4", big); res.Status != http.StatusRequestEntityTooLarge {
		t.Errorf("a 100 KB form: %d, want 413", res.Status)
	}
}

type zeroes struct{}

func (zeroes) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

func TestImageUploadLimitKnobAndCount(t *testing.T) {
	_, admin := imageApp(t, 64<<10)
	var noisy bytes.Buffer
	img := testPicture(300, 300)
	for i := range img.Pix {
		img.Pix[i] ^= uint8(i * 7919 >> 3) // noise does not compress
	}
	png.Encode(&noisy, img)
	if noisy.Len() <= 64<<10 {
		t.Fatalf("test picture only %d bytes", noisy.Len())
	}
	if res := admin.upload("6", "n.png", &noisy); res.Status != 422 || !strings.Contains(res.Body, "larger than 64 KB") {
		t.Fatalf("over MAX_IMAGE_BYTES: %d", res.Status)
	}
	small := pngBytes(t, testPicture(200, 100))
	for i := range media.MaxItemImages {
		// Distinct pictures: one pixel differs.
		p := testPicture(200, 100)
		p.Pix[0] = uint8(i)
		if res := admin.upload("6", "s.png", bytes.NewReader(pngBytes(t, p))); res.Status != http.StatusSeeOther {
			t.Fatalf("upload %d: %d %s", i+1, res.Status, res.Body)
		}
	}
	res := admin.upload("6", "s.png", bytes.NewReader(small))
	if res.Status != 422 || !strings.Contains(res.Body, "already has 8 pictures") {
		t.Fatalf("ninth picture: %d", res.Status)
	}
	form := admin.Get("/admin/items/6")
	if n := len(testids(form.Body, "admin-picture", "data-position")); n != 8 {
		t.Errorf("%d pictures on the form", n)
	}
	if strings.Contains(form.Body, `enctype="multipart/form-data"`) {
		t.Error("the upload form is offered with 8 pictures")
	}
}

func TestImageDeleteRenumbersAndPurges(t *testing.T) {
	a := cacheApp(t, 10_000, 300e9)
	admin := a.client()
	admin.signInAdmin()
	for i := range 3 {
		p := testPicture(400, 200)
		p.Pix[0] = uint8(i)
		if res := admin.upload("8", "p.png", bytes.NewReader(pngBytes(t, p))); res.Status != http.StatusSeeOther {
			t.Fatalf("upload: %d", res.Status)
		}
	}
	before, err := a.store.Media.ItemImages(t.Context(), 8)
	if err != nil || len(before) != 3 {
		t.Fatalf("before deleting: %d pictures (%v)", len(before), err)
	}
	shopper := a.client()
	shopper.Get("/items/8") // ranked now
	xcache(t, shopper.Get("/items/8"), "MISS")
	xcache(t, shopper.Get("/items/8"), "HIT")
	if res := admin.Post("/admin/items/8/images/2/delete", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.Status)
	}
	after, err := a.store.Media.ItemImages(t.Context(), 8)
	if err != nil || len(after) != 2 || after[0].Hash != before[0].Hash || after[1].Hash != before[2].Hash || after[1].Position != 2 {
		t.Fatalf("after deleting 2: %+v (%v)", after, err)
	}
	page := shopper.Get("/items/8")
	xcache(t, page, "MISS") // purged
	if n := len(testids(page.Body, "item-image", "data-position")); n != 2 {
		t.Errorf("%d pictures on the page", n)
	}
	if strings.Contains(page.Body, before[1].Hash) {
		t.Error("the deleted picture is still on the page")
	}
	if res := shopper.Get("/media/" + before[1].Hash + "-320.png"); res.Status != 404 {
		t.Errorf("a deleted picture no item uses is still served: %d", res.Status)
	}
	for _, path := range []string{"/admin/items/8/images/3/delete", "/admin/items/8/images/0/delete", "/admin/items/8/images/x/delete", "/admin/items/99999/images/1/delete"} {
		if res := admin.Post(path, nil); res.Status != 404 {
			t.Errorf("%s: %d", path, res.Status)
		}
	}
	// Shoppers cannot upload or delete.
	if res := shopper.upload("8", "p.png", bytes.NewReader(pngBytes(t, testPicture(50, 50)))); res.Status != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "/login") {
		t.Errorf("shopper upload: %d %s", res.Status, res.Header.Get("Location"))
	}
	if res := shopper.Post("/admin/items/8/images/1/delete", nil); res.Status == http.StatusSeeOther && !strings.Contains(res.Header.Get("Location"), "/login") {
		t.Errorf("shopper delete: %d", res.Status)
	}
	if got, err := a.store.Media.ItemImages(t.Context(), 8); err != nil || len(got) != 2 {
		t.Errorf("a shopper changed the pictures: %d (%v)", len(got), err)
	}
}

// TestLineThumbnails: cart lines, the checkout review and order lines show
// the item's main picture as item-thumb with srcset; an item without a
// picture keeps its placeholder tile.
func TestLineThumbnails(t *testing.T) {
	a, admin := imageApp(t, 0)
	if res := admin.upload("3", "photo.png", bytes.NewReader(pngBytes(t, testPicture(700, 500)))); res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	a.setStock(3, 10)
	a.setStock(4, 10)
	c := a.client()
	c.Register("thumb_shopper")
	c.MustPost("/cart", url.Values{"item": {"3"}, "qty": {"1"}}, http.StatusSeeOther)
	c.MustPost("/cart", url.Values{"item": {"4"}, "qty": {"1"}}, http.StatusSeeOther)
	thumbOf := regexp.MustCompile(`data-item-id="(\d+)"[^>]*>\s*<td class="line-item"><img class="thumb" data-testid="item-thumb" src="([^"]+)" srcset="([^"]+)"`)
	check := func(where, body string) {
		t.Helper()
		m := thumbOf.FindAllStringSubmatch(body, -1)
		if len(m) != 1 || m[0][1] != "3" || !strings.HasPrefix(m[0][2], "/media/") || !strings.Contains(m[0][3], "320w") {
			t.Errorf("%s: thumbnails %v, want one for item 3", where, m)
		}
	}
	cart := c.Get("/cart").Body
	check("cart", cart)
	review, _ := c.review()
	if !strings.Contains(review.Body, `data-testid="item-thumb"`) {
		t.Error("the checkout review shows no thumbnail")
	}
	res := c.checkout(nil)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", res.Status)
	}
	order := c.Get(res.Header.Get("Location"))
	if !strings.Contains(order.Body, `data-testid="item-thumb"`) {
		t.Error("the order page shows no thumbnail for item 3")
	}
	// Line thumbnails are decorative: the item's linked name follows each,
	// so naming the picture too would repeat it to screen readers.
	decorative := regexp.MustCompile(`<img class="thumb" data-testid="item-thumb"[^>]* alt=""`)
	for where, body := range map[string]string{"cart": cart, "review": review.Body, "order": order.Body} {
		if !decorative.MatchString(body) {
			t.Errorf("%s: the line thumbnail is not decorative (alt=\"\")", where)
		}
		if strings.Contains(body, `alt="`+itemName(t, a, 3)+`"`) {
			t.Errorf("%s: the line thumbnail repeats the item's name as its alt", where)
		}
	}
}

// TestMediaNotFoundWhateverIfNoneMatch: a picture that does not exist is a
// 404 even to a client that claims to hold it (If-None-Match is answered
// only for what exists), and only the canonical spelling of a name is
// served: a width with a leading zero is not another name for the same
// picture, with or without If-None-Match.
func TestMediaNotFoundWhateverIfNoneMatch(t *testing.T) {
	a, admin := imageApp(t, 0)
	if res := admin.upload("5", "p.png", bytes.NewReader(pngBytes(t, testPicture(700, 400)))); res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	imgs, err := a.store.Media.ItemImages(t.Context(), 5)
	if err != nil || len(imgs) != 1 {
		t.Fatalf("stored %v %v", imgs, err)
	}
	hash := imgs[0].Hash
	shopper := a.client()
	get := func(path, ifNoneMatch string) apptest.Response {
		req, _ := http.NewRequest("GET", a.srv.URL+path, nil)
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		return shopper.Do(req)
	}
	real := get("/media/"+hash+"-320.jpg", "")
	etag := real.Header.Get("ETag")
	if real.Status != 200 || etag == "" {
		t.Fatalf("the stored picture: %d, ETag %q", real.Status, etag)
	}
	if res := get("/media/"+hash+"-320.jpg", etag); res.Status != http.StatusNotModified {
		t.Errorf("the stored picture revalidated: %d, want 304", res.Status)
	}
	unknown := strings.Repeat("ab", 12)
	for _, tc := range []struct{ path, inm string }{
		{"/media/" + unknown + "-320.jpg", `"` + unknown + `-320"`},
		{"/media/" + unknown + "-320.jpg", "*"},
		{"/media/" + unknown + "-320.jpg", ""},
		{"/media/" + hash + "-0320.jpg", ""},
		{"/media/" + hash + "-0320.jpg", etag},
		{"/media/" + hash + "-00320.jpg", `"` + hash + `-00320"`},
		{"/media/" + hash + "-320.png", etag},
		{"/media/" + hash + "-1280.jpg", `"` + hash + `-1280"`},
	} {
		res := get(tc.path, tc.inm)
		if res.Status != http.StatusNotFound {
			t.Errorf("%s (If-None-Match %s): %d, want 404", tc.path, tc.inm, res.Status)
		}
		if res.Header.Get("ETag") != "" || strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("%s: a 404 carries the picture's caching headers: %v", tc.path, res.Header)
		}
	}
}

// TestImageUploadBusyTellsTheAdminWhy: while other pictures hold the
// process's whole picture memory, an upload waits part of its request's
// time and is then answered 503 with Retry-After, and the admin sees the
// item's page saying the server is busy with other pictures and when to
// try again, not the generic error page; nothing is stored. Once the
// memory is free the same upload goes through.
func TestImageUploadBusyTellsTheAdminWhy(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.RequestTimeout = time.Second })
	admin := a.client()
	admin.signInAdmin()
	budget := a.store.Media.ImageMemory
	release, err := budget.Reserve(t.Context(), media.ImageMemoryBudget)
	if err != nil {
		t.Fatal(err)
	}
	data := pngBytes(t, testPicture(500, 300))
	res := admin.upload("7", "p.png", bytes.NewReader(data))
	if res.Status != http.StatusServiceUnavailable {
		release()
		t.Fatalf("upload while busy: %d, want 503", res.Status)
	}
	secs, err := strconv.Atoi(res.Header.Get("Retry-After"))
	if err != nil || secs < 1 {
		t.Errorf("Retry-After %q", res.Header.Get("Retry-After"))
	}
	msg := textOf(res.Body, "field-error")
	if !strings.Contains(msg, "busy with other pictures") || !strings.Contains(msg, "Try again in "+strconv.Itoa(secs)+" second") {
		t.Errorf("the admin is told %q", msg)
	}
	if !strings.Contains(res.Body, `enctype="multipart/form-data"`) {
		t.Error("the answer is not the item's page with its upload form")
	}
	if imgs, err := a.store.Media.ItemImages(t.Context(), 7); err != nil || len(imgs) != 0 {
		t.Errorf("stored while busy: %v %v", imgs, err)
	}
	release()
	if res := admin.upload("7", "p.png", bytes.NewReader(data)); res.Status != http.StatusSeeOther {
		t.Fatalf("upload once free: %d %s", res.Status, textOf(res.Body, "field-error"))
	}
}

// TestImageUploadOutOfTimeTellsTheAdminWhy: a picture whose processing
// outlasts the request (here a 39-megapixel one with a 200 ms budget)
// stops at the deadline and the admin is told why on the item's page,
// read after the request's own time ran out, with 503 and Retry-After.
func TestImageUploadOutOfTimeTellsTheAdminWhy(t *testing.T) {
	a := newApp(t, nil, func(c *handlers.Config) { c.RequestTimeout = 200 * time.Millisecond })
	admin := a.client()
	admin.signInAdmin()
	big := pngBytes(t, image.NewGray(image.Rect(0, 0, 3000, 13_000)))
	res := admin.upload("7", "big.png", bytes.NewReader(big))
	if res.Status != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" {
		t.Fatalf("upload past the deadline: %d, Retry-After %q", res.Status, res.Header.Get("Retry-After"))
	}
	if msg := textOf(res.Body, "field-error"); !strings.Contains(msg, "Try again in") {
		t.Errorf("the admin is told %q", msg)
	}
	if imgs, err := a.store.Media.ItemImages(t.Context(), 7); err != nil || len(imgs) != 0 {
		t.Errorf("stored past the deadline: %v %v", imgs, err)
	}
}
