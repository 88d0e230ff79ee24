package admin

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/sales"
	"storefront/store/sessions"
	"storefront/views"
)

// fulfilShown is how many orders to send the dashboard lists.
const fulfilShown = 10

// adminNav are the dashboard's links; each shows only to a role that may
// open the page.
var adminNav = []views.NavLink{
	{Href: "/admin/items", Label: "Items", TestID: "admin-items-link"},
	{Href: "/admin/categories", Label: "Categories", TestID: "admin-categories-link"},
	{Href: "/admin/collections", Label: "Collections", TestID: "admin-collections-link"},
	{Href: "/admin/orders", Label: "Orders", TestID: "admin-orders-link"},
	{Href: "/admin/returns", Label: "Returns", TestID: "admin-returns-link"},
	{Href: "/admin/refunds", Label: "Refunds owed", TestID: "admin-refunds-link"},
	{Href: "/admin/sales", Label: "Sales", TestID: "admin-sales-link"},
	{Href: "/admin/moderation", Label: "Moderation", TestID: "admin-moderation-link"},
	{Href: "/admin/discounts", Label: "Discounts", TestID: "admin-discounts-link"},
	{Href: "/admin/shipping", Label: "Shipping", TestID: "admin-shipping-link"},
	{Href: "/admin/tax", Label: "Tax", TestID: "admin-tax-link"},
	{Href: "/admin/settings", Label: "Settings", TestID: "admin-settings-link"},
	{Href: "/admin/home", Label: "Home page", TestID: "admin-home-link"},
	{Href: "/admin/pages", Label: "Pages", TestID: "admin-pages-link"},
	{Href: "/admin/demo", Label: "Remove demo data", TestID: "admin-demo-link"},
	{Href: "/admin/staff", Label: "Staff", TestID: "admin-staff-link"},
	{Href: "/admin/audit", Label: "Audit log", TestID: "admin-audit-link"},
	{Href: "/admin/system", Label: "System", TestID: "admin-system-link"},
}

// Dashboard is GET /admin: the business first. A shop with steps left to
// set up shows its checklist; then the orders to send, today's sales and
// what runs low, per variant. Each role sees the links to the pages it may
// open, and only the parts of the business it may read.
func (h *Handler) Dashboard(c echo.Context) error {
	ctx := c.Request().Context()
	role := web.SessionOf(c).Role
	d := views.BusinessData{Role: string(role), Business: web.May(role, web.PermReports), Orders: web.May(role, web.PermOrders)}
	for _, l := range adminNav {
		if h.cfg.StaffRules != nil && h.cfg.StaffRules.MayRead(role, l.Href) {
			d.Nav = append(d.Nav, l)
		}
	}
	if d.Orders {
		n, fulfil, err := h.sales.ToFulfil(ctx, fulfilShown)
		if err != nil {
			return err
		}
		d.ToFulfil = n
		for _, o := range fulfil {
			d.Fulfil = append(d.Fulfil, views.FulfilRow{ID: o.ID, Status: o.Status, Items: o.Items,
				Total: web.ViewCurrency(o.Currency).Format(o.TotalCents), When: time.Unix(o.CreatedAt, 0).UTC().Format("2 Jan 15:04")})
		}
	}
	if !d.Business {
		return web.Render(c, http.StatusOK, views.DashboardPage(h.web.Chrome(c, "Dashboard"), d))
	}
	facts, err := h.sales.Setup(ctx)
	if err != nil {
		return err
	}
	today, err := h.sales.Summary(ctx, sales.Today)
	if err != nil {
		return err
	}
	low, err := h.sales.LowVariants(ctx)
	if err != nil {
		return err
	}
	_, card := h.orders.PaymentByCode(orders.PayCard)
	d.Setup = []views.SetupStep{
		{Key: "settings", Label: "Name the shop, its currency and address", Href: "/admin/settings", Done: h.merchant.SettingsSaved()},
		{Key: "item", Label: "Add your first item", Href: "/admin/items/new", Done: facts.Items > 0},
		{Key: "shipping", Label: "Set your delivery zones and prices", Href: "/admin/shipping", Done: facts.ZonesSaved},
		{Key: "payment", Label: "Take card payments (STRIPE_SECRET_KEY)", Href: "/admin/settings", Done: card},
		{Key: "home", Label: "Write your home page", Href: "/admin/home", Done: h.merchant.HomeSaved()},
	}
	d.SalesToday, d.OrdersToday = views.Money(ctx, today.RevenueCents), today.Orders
	for _, l := range low {
		d.Low = append(d.Low, views.LowRow{ItemID: l.ItemID, Name: l.Name, Variant: l.Variant, SKU: l.SKU, Stock: l.Stock})
	}
	if d.AskTwoFactor, err = h.askTwoFactor(c); err != nil {
		return err
	}
	return web.Render(c, http.StatusOK, views.DashboardPage(h.web.Chrome(c, "Dashboard"), d))
}

// askTwoFactor reports whether the signed-in owner signs in without two
// factors.
func (h *Handler) askTwoFactor(c echo.Context) (bool, error) {
	ctx := c.Request().Context()
	u, err := h.accounts.UserByID(ctx, web.SessionOf(c).UserID)
	if err != nil || u.Role != sessions.RoleOwner {
		return false, err
	}
	t, err := h.accounts.TwoFactor(ctx, u.ID)
	return !t.Enabled, err
}
