package admin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/media"
	"storefront/store/platform"
	"storefront/views"
)

// uploadDrainLimit is how much of a refused upload is read and thrown
// away so that the browser sees the answer instead of a reset connection;
// a body larger than that is cut off.
const uploadDrainLimit = 64 << 20

// errUploadForm is a request that is not a multipart form with a file.
var errUploadForm = errors.New("no file")

// uploadRefusal words each reason a picture is refused for the admin.
var uploadRefusal = map[error]string{
	media.ErrImageFormat:    "That file is not a JPEG, PNG, GIF or WebP picture.",
	media.ErrImageDamaged:   "That picture is damaged or incomplete.",
	media.ErrImageTooMany:   "That picture has too many pixels (at most 40 megapixels).",
	media.ErrImageShape:     "That picture is too long or too tall (at most 16,384 pixels a side).",
	media.ErrImageHeavy:     "That picture needs more memory to process than the shop allows (400 MB). Save it smaller, or as a baseline rather than a progressive JPEG.",
	media.ErrImagePolyglot:  "That file holds something besides the picture.",
	media.ErrItemImagesFull: "This item already has 8 pictures; delete one first.",
	errUploadForm:           "Choose a picture to upload.",
}

// UploadImage is POST /admin/items/:id/images (multipart field
// image): the picture is checked, re-encoded and added as the item's last.
// Anything refused is a 422 and stores nothing.
func (h *Handler) UploadImage(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	img, err := h.processUpload(c)
	var pos int
	if err == nil {
		pos, err = h.pictures.AddItemImage(c.Request().Context(), id, img)
	}
	if status, msg, refused := h.uploadRefused(c, err); refused {
		return h.pictureProblem(c, id, status, msg)
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "add picture", "item "+web.Itoa(id), "position", pos, "hash", img.Hash)
	return h.web.Done(c, fmt.Sprintf("Added picture %d. The item's cached pages were purged.", pos), "/admin/items/"+web.Itoa(id))
}

// readUpload streams the multipart body to the image field and reads at
// most one byte more than the limit, so a huge upload is never held.
func (h *Handler) readUpload(c echo.Context) ([]byte, error) {
	mr, err := c.Request().MultipartReader()
	if err != nil {
		return nil, errUploadForm
	}
	for {
		part, err := mr.NextPart()
		if err != nil {
			return nil, errUploadForm
		}
		if part.FormName() != "image" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, h.cfg.MaxImageBytes+1))
		if int64(len(data)) > h.cfg.MaxImageBytes {
			return nil, media.ErrImageTooLarge
		}
		if err != nil {
			return nil, media.ErrImageDamaged
		}
		return data, nil
	}
}

// DeleteImage is POST /admin/items/:id/images/:n/delete.
func (h *Handler) DeleteImage(c echo.Context) error {
	id, err := web.ItemIDParam(c)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(c.Param("n"))
	if err != nil || n < 1 || n > media.MaxItemImages {
		return web.NotFound("That item has no such picture.")
	}
	if err := h.pictures.DeleteItemImage(c.Request().Context(), id, n); errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("That item has no such picture.")
	} else if err != nil {
		return err
	}
	h.web.Audit(c, "delete picture", "item "+web.Itoa(id), "position", n)
	return h.web.Done(c, fmt.Sprintf("Deleted picture %d. The item's cached pages were purged.", n), "/admin/items/"+web.Itoa(id))
}

// processUpload reads the request's picture (the multipart field image)
// and checks and re-encodes it. The rest of a refused upload is read and
// thrown away first, so that the browser sees the answer.
func (h *Handler) processUpload(c echo.Context) (media.ProcessedImage, error) {
	req := c.Request()
	req.Body = http.MaxBytesReader(c.Response(), req.Body, h.cfg.MaxImageBytes+uploadDrainLimit)
	defer io.Copy(io.Discard, req.Body) //nolint:errcheck // draining a refused upload
	data, err := h.readUpload(c)
	if err != nil {
		return media.ProcessedImage{}, err
	}
	return h.pictures.ProcessImage(req.Context(), data, h.cfg.MaxImageBytes)
}

// uploadRefused words an upload's refusal for the admin: 422 with the
// reason, or 503 with Retry-After when the server was too busy to process
// it. refused is false for an error that is no refusal (nil included).
func (h *Handler) uploadRefused(c echo.Context, err error) (status int, msg string, refused bool) {
	if load, ok := errors.AsType[*media.LoadError](err); ok {
		secs := max(1, int(load.RetryAfter.Round(time.Second)/time.Second))
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		wait := "Try again in " + views.Counted(int64(secs), "second", "seconds") + "."
		msg := "The server is busy with other pictures. " + wait
		if errors.Is(load, media.ErrImageTimeout) {
			msg = "The server ran out of time processing that picture; it may be busy with other work. " + wait +
				" A smaller picture takes less time."
		}
		return http.StatusServiceUnavailable, msg, true
	}
	if errors.Is(err, media.ErrImageTooLarge) {
		return http.StatusUnprocessableEntity, fmt.Sprintf("That file is larger than %s.", byteSize(h.cfg.MaxImageBytes)), true
	}
	for reason, msg := range uploadRefusal {
		if errors.Is(err, reason) {
			return http.StatusUnprocessableEntity, msg, true
		}
	}
	return 0, "", false
}

// pictureProblem shows a refused upload's reason with status, as JSON or
// on the item's edit page. The page is read on a context of its own: the
// request's may have ended, which may be why the upload was refused.
func (h *Handler) pictureProblem(c echo.Context, id int64, status int, msg string) error {
	if web.WantsJSON(c) {
		return c.JSON(status, map[string]string{"error": msg})
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.Request().Context()), pageAfterRefusal)
	defer cancel()
	c.SetRequest(c.Request().WithContext(ctx))
	it, err := h.catalog.Item(ctx, id)
	if err != nil {
		return err
	}
	f := itemForm(h.web.Currency(), it)
	f.PictureError = msg
	if err := h.withItemPictures(c, &f); err != nil {
		return err
	}
	return web.Render(c, status, views.AdminItemPage(h.web.Chrome(c, "Edit "+it.Name), f))
}

// pageAfterRefusal bounds reading and showing the edit page after an
// upload was refused.
const pageAfterRefusal = 3 * time.Second

// withItemPictures adds the item's pictures and the upload limit to its
// edit form.
func (h *Handler) withItemPictures(c echo.Context, f *views.ItemForm) error {
	imgs, err := h.pictures.ItemImages(c.Request().Context(), f.ID)
	if err != nil {
		return err
	}
	f.Pictures = web.Pictures(imgs)
	f.CanAddPicture = len(imgs) < media.MaxItemImages
	f.PictureLimit = byteSize(h.cfg.MaxImageBytes)
	return nil
}

// byteSize describes a byte count for people: 10 MB, 512 KB.
func byteSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
