package admin

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/merchant"
	"storefront/store/platform"
	"storefront/views"
)

// Merchant is the shop's settings, as the admin reads and saves them.
type Merchant interface {
	Current() merchant.Settings
	SettingsSaved() bool
	HomeSaved() bool
	Home() merchant.Home
	SaveHome(ctx context.Context, f merchant.HomeForm) (merchant.Home, error)
	SaveSettings(ctx context.Context, s merchant.Settings) (merchant.Settings, error)
	Pages() []merchant.Page
	Page(slug string) (merchant.Page, error)
	SavePage(ctx context.Context, old string, f merchant.PageForm) (merchant.Page, error)
	DeletePage(ctx context.Context, slug string) error
	Logo() merchant.Logo
	SetLogo(ctx context.Context, l merchant.Logo) (string, error)
}

// ShopSettings is GET /admin/settings: the shop's name, currency, contact
// email and postal address.
func (h *Handler) ShopSettings(c echo.Context) error {
	s := h.merchant.Current()
	return h.settingsPage(c, http.StatusOK, views.SettingsForm{ShopName: s.ShopName, Currency: s.Currency,
		ContactEmail: s.ContactEmail, Address: s.Address}, "")
}

// SaveShopSettings is POST /admin/settings (shop_name, currency,
// contact_email, address): all saved, every cached page purged, or a 422
// saying what is wrong and nothing changed.
func (h *Handler) SaveShopSettings(c echo.Context) error {
	in := merchant.Settings{ShopName: c.FormValue("shop_name"), Currency: c.FormValue("currency"),
		ContactEmail: c.FormValue("contact_email"), Address: c.FormValue("address")}
	saved, err := h.merchant.SaveSettings(c.Request().Context(), in)
	var fe *merchant.FieldError
	if errors.As(err, &fe) {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": fe.Msg, "field": fe.Field})
		}
		f := views.SettingsForm{ShopName: in.ShopName, Currency: in.Currency, ContactEmail: in.ContactEmail, Address: in.Address,
			Errors: map[string]string{fe.Field: fe.Msg}}
		return h.settingsPage(c, http.StatusUnprocessableEntity, f, "The settings were not saved: "+fe.Msg)
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "settings", "shop", "shop_name", saved.ShopName, "currency", saved.Currency)
	return h.web.Done(c, "Settings saved: the shop is "+saved.ShopName+", prices in "+saved.Currency+".", "/admin/settings")
}

func (h *Handler) settingsPage(c echo.Context, status int, f views.SettingsForm, msg string) error {
	return h.renderSettings(c, status, views.AdminSettingsData{Form: f, Error: msg})
}

func (h *Handler) settingsPageWithLogoError(c echo.Context, status int, f views.SettingsForm, msg string) error {
	return h.renderSettings(c, status, views.AdminSettingsData{Form: f, LogoError: msg})
}

func (h *Handler) renderSettings(c echo.Context, status int, d views.AdminSettingsData) error {
	d.Currencies = merchant.CurrencyCodes()
	d.Example = web.ViewCurrency(h.merchant.Current().Currency).Format(123450)
	d.Logo = h.web.Shop().Logo
	d.ImageLimit = byteSize(h.cfg.MaxImageBytes)
	return web.Render(c, status, views.AdminSettingsPage(h.web.Chrome(c, "Settings"), d))
}

// HomePage is GET /admin/home: the home page's form.
func (h *Handler) HomePage(c echo.Context) error {
	home := h.merchant.Home()
	ids := make([]string, len(home.Featured))
	for i, id := range home.Featured {
		ids[i] = web.Itoa(id)
	}
	f := views.HomeForm{HeroTitle: home.HeroTitle, HeroText: home.HeroText, Featured: strings.Join(ids, ", "), ShowArticles: home.ShowArticles,
		Collection: home.Collection}
	return web.Render(c, http.StatusOK, views.AdminHomePage(h.web.Chrome(c, "Home page"), f, ""))
}

// SaveHomePage is POST /admin/home (hero_title, hero_text, featured,
// show_articles): saved, every cached page purged, or a 422 saying what
// is wrong and nothing changed.
func (h *Handler) SaveHomePage(c echo.Context) error {
	in := merchant.HomeForm{HeroTitle: c.FormValue("hero_title"), HeroText: c.FormValue("hero_text"),
		Featured: c.FormValue("featured"), ShowArticles: c.FormValue("show_articles") != "", Collection: strings.TrimSpace(c.FormValue("collection"))}
	var err error
	if in.Collection != "" && h.collections != nil {
		if _, cerr := h.collections.BySlug(c.Request().Context(), in.Collection); errors.Is(cerr, platform.ErrNotFound) {
			err = &merchant.FieldError{Field: "collection", Msg: "No collection has that address."}
		} else if cerr != nil {
			return cerr
		}
	}
	if err == nil {
		_, err = h.merchant.SaveHome(c.Request().Context(), in)
	}
	var fe *merchant.FieldError
	if errors.As(err, &fe) {
		if web.WantsJSON(c) {
			return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": fe.Msg, "field": fe.Field})
		}
		f := views.HomeForm{HeroTitle: in.HeroTitle, HeroText: in.HeroText, Featured: in.Featured, ShowArticles: in.ShowArticles,
			Collection: in.Collection, Errors: map[string]string{fe.Field: fe.Msg}}
		return web.Render(c, http.StatusUnprocessableEntity, views.AdminHomePage(h.web.Chrome(c, "Home page"), f, "The home page was not saved: "+fe.Msg))
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "home page", "home")
	return h.web.Done(c, "Home page saved.", "/admin/home")
}
