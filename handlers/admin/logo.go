package admin

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/media"
	"storefront/store/merchant"
	"storefront/views"
)

// UploadLogo is POST /admin/settings/logo (multipart field image): the
// picture is checked and re-encoded as item pictures are, and becomes the
// logo beside the shop's name in every page's header. Anything refused is
// a 422 on the settings page and changes nothing.
func (h *Handler) UploadLogo(c echo.Context) error {
	req := c.Request()
	req.Body = http.MaxBytesReader(c.Response(), req.Body, h.cfg.MaxImageBytes+uploadDrainLimit)
	defer io.Copy(io.Discard, req.Body) //nolint:errcheck // draining a refused upload
	data, err := h.readUpload(c)
	var img media.ProcessedImage
	if err == nil {
		img, err = h.pictures.ProcessImage(req.Context(), data, h.cfg.MaxImageBytes)
	}
	if load, ok := errors.AsType[*media.LoadError](err); ok {
		secs := max(1, int(load.RetryAfter.Round(time.Second)/time.Second))
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return h.logoRefused(c, http.StatusServiceUnavailable, "The server is busy with other pictures. Try again in "+
			views.Counted(int64(secs), "second", "seconds")+".")
	}
	if errors.Is(err, media.ErrImageTooLarge) {
		return h.logoRefused(c, http.StatusUnprocessableEntity, fmt.Sprintf("That file is larger than %s.", byteSize(h.cfg.MaxImageBytes)))
	}
	for reason, msg := range uploadRefusal {
		if errors.Is(err, reason) {
			return h.logoRefused(c, http.StatusUnprocessableEntity, msg)
		}
	}
	if err != nil {
		return err
	}
	ctx := req.Context()
	if err := h.pictures.StoreImage(ctx, img); err != nil {
		return err
	}
	logo := merchant.Logo{Hash: img.Hash}
	for _, r := range img.Renditions {
		logo.Sizes = append(logo.Sizes, merchant.LogoSize{Width: r.Width, Height: r.Height, Ext: r.Ext})
	}
	was, err := h.merchant.SetLogo(ctx, logo)
	if err != nil {
		return err
	}
	h.dropOldLogo(c, was, img.Hash)
	h.web.Audit(c, "logo", "shop", "hash", img.Hash)
	return h.web.Done(c, "The logo is in every page's header now.", "/admin/settings")
}

// RemoveLogo is POST /admin/settings/logo/delete: the header shows the
// shop's name alone again.
func (h *Handler) RemoveLogo(c echo.Context) error {
	was, err := h.merchant.SetLogo(c.Request().Context(), merchant.Logo{})
	if err != nil {
		return err
	}
	h.dropOldLogo(c, was, "")
	h.web.Audit(c, "logo removed", "shop", "hash", was)
	return h.web.Done(c, "The logo is removed: the header shows the shop's name alone.", "/admin/settings")
}

// dropOldLogo deletes the replaced logo's picture unless an item shows it
// too; failing that leaves an unused picture behind, nothing worse.
func (h *Handler) dropOldLogo(c echo.Context, was, now string) {
	if was == "" || was == now {
		return
	}
	if err := h.pictures.DropUnusedImage(c.Request().Context(), was); err != nil {
		c.Logger().Warnf("drop the old logo %s: %v", was, err)
	}
}

// logoRefused answers a refused logo: the status with the reason, as JSON
// or on the settings page.
func (h *Handler) logoRefused(c echo.Context, status int, msg string) error {
	if web.WantsJSON(c) {
		return c.JSON(status, map[string]string{"error": msg, "field": "logo"})
	}
	s := h.merchant.Current()
	f := views.SettingsForm{ShopName: s.ShopName, Currency: s.Currency, ContactEmail: s.ContactEmail, Address: s.Address}
	return h.settingsPageWithLogoError(c, status, f, msg)
}
