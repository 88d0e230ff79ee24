package shop

import (
	"context"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/media"
	"storefront/views"
)

// mediaName is a picture URL's file name: content hash, width, extension.
var mediaName = regexp.MustCompile(`^([0-9a-f]{24})-([0-9]{1,5})\.(jpg|png)$`)

// Media is GET /media/<hash>-<width>.<ext>: one stored size of a picture.
// The name is derived from the content, so it never changes: cached for
// a year, and revalidated by ETag. Only the canonical spelling of a name
// is served (no leading zeros in the width), and a picture that is not
// stored is a 404 whatever If-None-Match claims: the revalidation is
// answered only after the picture is found.
func (h *Handler) Media(c echo.Context) error {
	m := mediaName.FindStringSubmatch(c.Param("file"))
	if m == nil {
		return web.NotFound("No such picture.")
	}
	width, err := strconv.Atoi(m[2])
	if err != nil || strconv.Itoa(width) != m[2] {
		return web.NotFound("No such picture.")
	}
	ctx := c.Request().Context()
	etag := `"` + m[1] + "-" + m[2] + `"`
	if etagMatches(c.Request().Header.Get("If-None-Match"), etag) {
		ok, err := h.pictures.HasMedia(ctx, m[1], width, m[3])
		if err != nil {
			return err
		}
		if !ok {
			return web.NotFound("No such picture.")
		}
		mediaHeaders(c, etag)
		return c.NoContent(http.StatusNotModified)
	}
	r, err := h.pictures.Media(ctx, m[1], width, m[3])
	if err != nil {
		return err
	}
	mediaHeaders(c, etag)
	return c.Blob(http.StatusOK, r.ContentType, r.Bytes)
}

// mediaHeaders marks a stored picture's answer: its ETag, and cacheable
// by anyone for a year (its name changes with its content).
func mediaHeaders(c echo.Context, etag string) {
	hdr := c.Response().Header()
	hdr.Set("ETag", etag)
	hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
}

// etagMatches reports whether an If-None-Match header names etag: "*",
// or a list of tags compared weakly (W/ ignored), as RFC 9110 asks.
func etagMatches(header, etag string) bool {
	for tag := range strings.SplitSeq(header, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

// lineRef is a cart or order line as its picture is chosen: its item, and
// the position of its variant's own picture (0: the item's main one).
type lineRef struct {
	item    int64
	picture int
}

// linePictures returns each line's picture, in order: its variant's own
// where the item has a picture there, else the item's main one (zero for
// an item without pictures). One query reads the main pictures, and one
// more each item whose line shows a picture of its own.
func (h *Handler) linePictures(ctx context.Context, refs []lineRef) ([]views.Picture, error) {
	ids := make([]int64, len(refs))
	for i, r := range refs {
		ids[i] = r.item
	}
	main, err := h.pictures.MainImages(ctx, ids)
	if err != nil {
		return nil, err
	}
	all := map[int64][]media.ItemImage{}
	out := make([]views.Picture, len(refs))
	for i, r := range refs {
		if img, ok := main[r.item]; ok {
			out[i] = web.Picture(img)
		}
		if r.picture <= 1 {
			continue
		}
		imgs, read := all[r.item]
		if !read {
			if imgs, err = h.pictures.ItemImages(ctx, r.item); err != nil {
				return nil, err
			}
			all[r.item] = imgs
		}
		for _, img := range imgs {
			if img.Position == r.picture {
				out[i] = web.Picture(img)
			}
		}
	}
	return out, nil
}

// withPictures fills in the cards' main pictures with one query.
func (h *Handler) withPictures(ctx context.Context, lists ...[]views.ItemCard) error {
	var ids []int64
	for _, l := range lists {
		for _, c := range l {
			ids = append(ids, c.ID)
		}
	}
	main, err := h.pictures.MainImages(ctx, ids)
	if err != nil {
		return err
	}
	for _, l := range lists {
		for i := range l {
			if img, ok := main[l[i].ID]; ok {
				l[i].Picture = web.Picture(img)
			}
		}
	}
	return nil
}
