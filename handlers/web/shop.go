package web

import (
	"context"

	"github.com/labstack/echo/v4"

	"storefront/store/media"
	"storefront/store/merchant"
	"storefront/views"
)

// ShopSettings is the merchant's settings in force, read from memory.
type ShopSettings interface {
	Current() merchant.Settings
	Pages() []merchant.Page
	Logo() merchant.Logo
}

// Shop is the shop as every page shows it: its name, currency and how to
// reach it (the defaults without settings, as in tests of the plumbing
// alone).
func (k *Kit) Shop() views.Shop {
	if k.deps.Shop == nil {
		return views.DefaultShop
	}
	s := k.deps.Shop.Current()
	shop := views.Shop{Name: s.ShopName, Currency: ViewCurrency(s.Currency), ContactEmail: s.ContactEmail, Address: s.AddressLines()}
	for _, p := range k.deps.Shop.Pages() {
		shop.Pages = append(shop.Pages, views.InfoLink{Title: p.Title, Slug: p.Slug})
	}
	if l := k.deps.Shop.Logo(); l.Hash != "" {
		img := media.ItemImage{Hash: l.Hash}
		for _, z := range l.Sizes {
			img.Sizes = append(img.Sizes, media.ImageSize{Width: z.Width, Height: z.Height, Ext: z.Ext})
		}
		shop.Logo = Picture(img)
	}
	return shop
}

// WithShop returns ctx carrying the shop, for a render outside a request
// (the page cache's background renders).
func (k *Kit) WithShop(ctx context.Context) context.Context { return views.WithShop(ctx, k.Shop()) }

// Currency is the shop's currency in force: what admins type amounts in
// (Currency.ParseAmount) and forms show them in (Currency.AmountInput).
func (k *Kit) Currency() merchant.Currency {
	if k.deps.Shop == nil {
		return merchant.MustCurrency(merchant.DefaultCurrency)
	}
	return merchant.MustCurrency(k.deps.Shop.Current().Currency)
}

// ViewCurrency is how amounts in a currency are written.
func ViewCurrency(code string) views.Currency {
	c := merchant.MustCurrency(code)
	return views.Currency{Code: c.Code, Symbol: c.Symbol, Digits: c.Digits}
}

// InCurrency returns ctx whose prices are written in the currency code
// (an order's own, recorded when it was placed).
func InCurrency(ctx context.Context, code string) context.Context {
	return views.WithCurrency(ctx, ViewCurrency(code))
}

// UseCurrency makes the rest of the request write prices in the currency
// code: an order's page shows its amounts in the order's own currency,
// whatever the shop's is now.
func UseCurrency(c echo.Context, code string) {
	c.SetRequest(c.Request().WithContext(InCurrency(c.Request().Context(), code)))
}
