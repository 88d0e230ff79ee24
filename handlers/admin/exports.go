package admin

import (
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/store/merchant"
	"storefront/store/orders"
)

// ordersCSVBatch is how many orders the export reads at a time.
const ordersCSVBatch = 500

// OrdersCSV is GET /admin/orders.csv?q=&status=: the admin's order list
// with the same filters, every page of it, newest first, as CSV.
func (h *Handler) OrdersCSV(c echo.Context) error {
	status := c.QueryParam("status")
	if status != "" && !orders.IsOrderStatus(status) {
		return web.BadRequest("Unknown order status.")
	}
	q, err := searchParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	header := append([]string{"order", "placed", "status", "shopper", "email", "name", "items", "total", "shipping"}, addressCSVHeader...)
	name := "orders-" + time.Now().UTC().Format("20060102") + ".csv"
	return csvExport(c, name, header, func(row func([]string) error) error {
		query := orders.AdminOrderQuery{Status: status, Q: q, Limit: ordersCSVBatch}
		for {
			found, _, err := h.orders.AdminOrders(ctx, query)
			if err != nil {
				return err
			}
			for _, o := range found {
				shopper := o.Username
				if o.UserID == orders.GuestUserID {
					shopper = ""
				}
				if err := row(append([]string{web.Itoa(o.ID), o.CreatedAt.UTC().Format(time.RFC3339), o.Status, shopper, o.Email,
					o.Address.Name, web.Itoa(o.ItemCount), merchant.MustCurrency(o.Currency).AmountInput(o.TotalCents), o.Shipping}, addressCSV(o.Address)...)); err != nil {
					return err
				}
			}
			if len(found) < ordersCSVBatch {
				return nil
			}
			query.BeforeID = found[len(found)-1].ID
		}
	})
}

// OrderLinesCSV is GET /admin/order-lines.csv?q=&status=: the lines of the
// admin's order list with the same filters, newest order first, one row
// per line with its SKU and options, what the warehouse picks and packs.
func (h *Handler) OrderLinesCSV(c echo.Context) error {
	status := c.QueryParam("status")
	if status != "" && !orders.IsOrderStatus(status) {
		return web.BadRequest("Unknown order status.")
	}
	q, err := searchParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	header := append([]string{"order", "placed", "status", "sku", "item", "options", "qty", "price", "total", "name", "shipping"},
		addressCSVHeader...)
	name := "order-lines-" + time.Now().UTC().Format("20060102") + ".csv"
	return csvExport(c, name, header, func(row func([]string) error) error {
		query := orders.AdminOrderQuery{Status: status, Q: q, Limit: ordersCSVBatch}
		for {
			found, _, err := h.orders.AdminOrders(ctx, query)
			if err != nil {
				return err
			}
			ids := make([]int64, len(found))
			for i, o := range found {
				ids[i] = o.ID
			}
			lines, err := h.orders.LinesOf(ctx, ids)
			if err != nil {
				return err
			}
			for _, o := range found {
				for _, l := range lines[o.ID] {
					if err := row(append([]string{web.Itoa(o.ID), o.CreatedAt.UTC().Format(time.RFC3339), o.Status, l.SKU, l.Name, l.Variant,
						web.Itoa(l.Qty), merchant.MustCurrency(o.Currency).AmountInput(l.PriceCents), merchant.MustCurrency(o.Currency).AmountInput(l.TotalCents()), o.Address.Name, o.Shipping},
						addressCSV(o.Address)...)); err != nil {
						return err
					}
				}
			}
			if len(found) < ordersCSVBatch {
				return nil
			}
			query.BeforeID = found[len(found)-1].ID
		}
	})
}

// addressCSVHeader are the delivery address's columns of the orders'
// exports after the name (the "name" column), as a shipping tool reads
// them: the region is its code ("IL"), the country its ISO 3166-1 alpha-2
// code.
var addressCSVHeader = []string{"ship_line1", "ship_line2", "ship_city", "ship_region", "ship_postcode", "ship_country", "ship_phone"}

// addressCSV is an address as addressCSVHeader's columns.
func addressCSV(a orders.Address) []string {
	return []string{a.Line1, a.Line2, a.City, a.Region, a.Postcode, a.Country, a.Phone}
}

// itemsCSVHeader are the catalog export's columns, which the import
// reads back. An item without options is one row with empty options and
// compare_at; an item with options is one row per variant, its SKU the
// variant's and its options filled in ("Size: M, Colour: Black").
var itemsCSVHeader = []string{"sku", "name", "category", "price", "compare_at", "stock", "options", "description", "archived"}

// ItemsCSV is GET /admin/items.csv: the whole catalog, archived items too,
// by id, one row per variant (an item without options is one).
func (h *Handler) ItemsCSV(c echo.Context) error {
	name := "items-" + time.Now().UTC().Format("20060102") + ".csv"
	ctx := c.Request().Context()
	cur := h.web.Currency()
	return csvExport(c, name, itemsCSVHeader, func(row func([]string) error) error {
		return h.catalog.EachItem(ctx, func(it catalog.Item) error {
			if !it.HasOptions() {
				return row([]string{it.SKU, it.Name, it.Category, cur.AmountInput(it.PriceCents), "", strconv.FormatInt(it.Stock, 10), "",
					it.Description, strconv.FormatBool(it.Archived())})
			}
			vs, err := h.catalog.Variants(ctx, it.ID)
			if err != nil {
				return err
			}
			for _, v := range vs {
				sold, compare := v.Sold(it), ""
				if v.CompareAtCents > 0 {
					compare = cur.AmountInput(v.CompareAtCents)
				}
				if err := row([]string{v.SKU, it.Name, it.Category, cur.AmountInput(sold.PriceCents), compare, strconv.FormatInt(v.Stock, 10),
					v.Label(it.Options), it.Description, strconv.FormatBool(it.Archived())}); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
