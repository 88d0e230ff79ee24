package shop

import (
	"context"
	"net/http"
	"regexp"
	"strconv"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/views"
)

// mediaName is a picture URL's file name: content hash, width, extension.
var mediaName = regexp.MustCompile(`^([0-9a-f]{24})-([0-9]{1,5})\.(jpg|png)$`)

// Media is GET /media/<hash>-<width>.<ext>: one stored size of a picture.
// The name is derived from the content, so it never changes: cached for
// a year, and revalidated by ETag.
func (h *Handler) Media(c echo.Context) error {
	m := mediaName.FindStringSubmatch(c.Param("file"))
	if m == nil {
		return web.NotFound("No such picture.")
	}
	etag := `"` + m[1] + "-" + m[2] + `"`
	hdr := c.Response().Header()
	if c.Request().Header.Get("If-None-Match") == etag {
		hdr.Set("ETag", etag)
		hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
		return c.NoContent(http.StatusNotModified)
	}
	width, _ := strconv.Atoi(m[2])
	r, err := h.pictures.Media(c.Request().Context(), m[1], width, m[3])
	if err != nil {
		return err
	}
	hdr.Set("ETag", etag)
	hdr.Set("Cache-Control", "public, max-age=31536000, immutable")
	return c.Blob(http.StatusOK, r.ContentType, r.Bytes)
}

// linePictures returns the main pictures of items ids, for the lines of
// carts and orders.
func (h *Handler) linePictures(ctx context.Context, ids []int64) (map[int64]views.Picture, error) {
	main, err := h.pictures.MainImages(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]views.Picture, len(main))
	for id, img := range main {
		out[id] = web.Picture(img)
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
