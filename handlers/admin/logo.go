package admin

import (
	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/merchant"
	"storefront/views"
)

// UploadLogo is POST /admin/settings/logo (multipart field image): the
// picture is checked and re-encoded as item pictures are, and becomes the
// logo beside the shop's name in every page's header. Anything refused is
// a 422 on the settings page and changes nothing.
func (h *Handler) UploadLogo(c echo.Context) error {
	img, err := h.processUpload(c)
	if err == nil {
		err = h.pictures.StoreImage(c.Request().Context(), img)
	}
	if status, msg, refused := h.uploadRefused(c, err); refused {
		return h.logoRefused(c, status, msg)
	}
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
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
