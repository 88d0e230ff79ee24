package admin

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/sales"
	"storefront/views"
)

// periodLabels name the sales periods.
var periodLabels = map[sales.Period]string{sales.Today: "Today", sales.Week: "7 days", sales.Month: "30 days"}

// Sales is GET /admin/sales?period=today|7d|30d (7d unless set): the
// totals of every period, and the chosen period's takings chart and best
// sellers, with the items running out. Every number is read from SQL now.
func (h *Handler) Sales(c echo.Context) error {
	ctx := c.Request().Context()
	period := sales.Period(c.QueryParam("period"))
	if period == "" {
		period = sales.Week
	}
	if !period.Valid() {
		return web.BadRequest("Choose the period today, 7d or 30d.")
	}
	d := views.SalesData{Period: string(period), LowAt: sales.LowAt, UpdatedAt: web.When(time.Now())}
	for _, p := range sales.Periods {
		s, err := h.sales.Summary(ctx, p)
		if err != nil {
			return err
		}
		d.Periods = append(d.Periods, views.SalesPeriod{Key: string(p), Label: periodLabels[p], Since: web.When(s.Since),
			RevenueCents: s.RevenueCents, Orders: s.Orders, AverageCents: s.AverageCents, Sessions: s.Sessions,
			Conversion: views.Percent(s.Conversion()), RefundCents: s.RefundCents})
	}
	buckets, err := h.sales.Buckets(ctx, period)
	if err != nil {
		return err
	}
	labels, cents, counts := make([]string, len(buckets)), make([]int64, len(buckets)), make([]int64, len(buckets))
	for i, b := range buckets {
		labels[i] = b.Start.UTC().Format("2 Jan")
		if period == sales.Today {
			labels[i] = b.Start.UTC().Format("15:00")
		}
		cents[i], counts[i] = b.RevenueCents, b.Orders
	}
	by := "day"
	if period == sales.Today {
		by = "hour"
	}
	d.Chart = views.NewSalesChart(c.Request().Context(), "Takings by "+by+", "+periodLabels[period], labels, cents, counts)
	top, err := h.sales.TopSellers(ctx, period)
	if err != nil {
		return err
	}
	for _, s := range top {
		d.Top = append(d.Top, views.SalesSeller{ItemID: s.ItemID, Name: s.Name, Units: s.Units, RevenueCents: s.RevenueCents})
	}
	low, err := h.sales.LowStock(ctx)
	if err != nil {
		return err
	}
	for _, l := range low {
		d.Low = append(d.Low, views.SalesLow{ItemID: l.ItemID, Name: l.Name, Stock: l.Stock})
	}
	return web.Render(c, http.StatusOK, views.SalesPage(h.web.Chrome(c, "Sales"), d))
}
