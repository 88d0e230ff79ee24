package admin

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/views"
)

// refundsShown is how many owed refunds the admin's list shows.
const refundsShown = 500

// Refunds is GET /admin/refunds: what the shop owes its shoppers, each
// refund its payment method has not given back yet, with its state (owed
// and tried again, or refused), its tries and its last error.
func (h *Handler) Refunds(c echo.Context) error {
	rs, err := h.orders.OwedRefunds(c.Request().Context(), refundsShown)
	if err != nil {
		return err
	}
	var d views.AdminRefundsData
	for _, r := range rs {
		d.Refunds = append(d.Refunds, views.RefundOwedView{ID: r.ID, OrderID: r.OrderID, Cents: r.Cents, Reason: refundReasonText(r),
			Status: r.Status, Attempts: r.Attempts, Error: r.LastError, Asked: web.When(r.At), NextTry: web.When(r.NextTry)})
	}
	return web.Render(c, http.StatusOK, views.AdminRefundsPage(h.web.Chrome(c, "Refunds owed"), d))
}

// refundReasonText says what a refund is for.
func refundReasonText(r orders.Refund) string {
	if id, ok := orders.ReturnOf(r.Reason); ok {
		return "Return #" + web.Itoa(id)
	}
	switch r.Reason {
	case orders.ReasonCancel:
		return "Order cancelled after payment"
	case orders.ReasonLatePayment:
		return "Payment after the order was cancelled (" + r.PaymentRef + ")"
	case orders.ReasonMismatch:
		return "Payment of another amount or currency (" + r.PaymentRef + ")"
	}
	return "Refund by an admin"
}

// RefundRetry is POST /admin/refunds/:id/retry: an owed or refused refund
// is asked of its payment method again now. One settled, or being tried
// at this moment, is a 422; a missing one 404.
func (h *Handler) RefundRetry(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no refund with that number.")
	}
	r, err := h.orders.RetryRefund(c.Request().Context(), id)
	if err := refundRefusal(c, id, err); err != nil {
		return err
	}
	h.web.Audit(c, "refund retried", "refund "+web.Itoa(id), "status", r.Status)
	if r.Done() {
		return h.web.Done(c, fmt.Sprintf("Refund #%d: %s given back.", id, views.Money(c.Request().Context(), r.Cents)), "/admin/refunds")
	}
	return h.web.Done(c, fmt.Sprintf("Refund #%d is still owed: %s", id, r.LastError), "/admin/refunds")
}

// RefundSettle is POST /admin/refunds/:id/settle (note): an owed or
// refused refund is recorded as given back by hand, the note saying how;
// nothing more is asked of the payment provider. A missing or long note,
// or a refund settled or being tried, is a 422 and changes nothing.
func (h *Handler) RefundSettle(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no refund with that number.")
	}
	r, err := h.orders.SettleRefundByHand(c.Request().Context(), id, c.FormValue("note"), orders.AdminActor(web.SessionOf(c).UserName))
	if err := refundRefusal(c, id, err); err != nil {
		return err
	}
	h.web.Audit(c, "refund settled by hand", "refund "+web.Itoa(id), "cents", r.Cents)
	return h.web.Done(c, fmt.Sprintf("Refund #%d: %s recorded as given back by hand.", id, views.Money(c.Request().Context(), r.Cents)), "/admin/refunds")
}

// refundRefusal answers a refused retry or settle (or passes a failure on).
func refundRefusal(c echo.Context, id int64, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is no refund with that number.")
	case errors.Is(err, orders.ErrNote):
		return web.Unprocessable(c, fmt.Sprintf("Say how the money went back, in 1 to %d characters.", orders.MaxRefundNoteLen))
	case errors.Is(err, orders.ErrRefundNotOwed):
		return web.Unprocessable(c, fmt.Sprintf("Refund #%d is not owed now: it was settled, or is being tried at this moment.", id))
	}
	return err
}
