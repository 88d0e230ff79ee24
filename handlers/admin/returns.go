package admin

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/store/returns"
	"storefront/views"
)

// returnsShown is how many returns the admin's list shows, newest first.
const returnsShown = 200

// nextActions are the steps the admin may take on a return in a status.
var nextActions = map[string][]string{
	returns.Requested: {returns.ActApprove, returns.ActReject},
	returns.Approved:  {returns.ActReceive},
	returns.Received:  {returns.ActRefund},
}

// Returns is GET /admin/returns: the newest returns with their status,
// what a refund gives back, and the steps each may take.
func (h *Handler) Returns(c echo.Context) error {
	ctx := c.Request().Context()
	rs, err := h.returns.Latest(ctx, returnsShown)
	if err != nil {
		return err
	}
	var d views.AdminReturnsData
	for _, r := range rs {
		v := web.ReturnView(r)
		if r.Status != returns.Refunded && r.Status != returns.Rejected {
			if v.ValueCents, err = h.returns.RefundCents(ctx, r); err != nil {
				return err
			}
		}
		v.Actions = nextActions[r.Status]
		d.Returns = append(d.Returns, v)
	}
	return web.Render(c, http.StatusOK, views.AdminReturnsPage(h.web.Chrome(c, "Returns"), d))
}

// ReturnAct is POST /admin/returns/:id (action = approve, reject, receive
// or refund; restock=1 with receive puts the stock back). A step the
// return's status does not allow, an unknown action or a refund past what
// was paid is a 422 and changes nothing; the shopper is emailed at each
// step.
func (h *Handler) ReturnAct(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no return with that number.")
	}
	action := c.FormValue("action")
	restock := c.FormValue("restock") == "1"
	r, err := h.returns.Act(c.Request().Context(), id, action, restock, orders.AdminActor(web.SessionOf(c).UserName))
	var me *returns.MoveError
	switch {
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is no return with that number.")
	case errors.As(err, &me):
		return web.Unprocessable(c, fmt.Sprintf("Return #%d is %s: it cannot be given %q.", id, views.ReturnStatusText(me.From), action))
	case errors.Is(err, orders.ErrRefundTooLarge):
		return web.Unprocessable(c, fmt.Sprintf("Return #%d cannot be refunded: that would give back more than was paid for the order.", id))
	case errors.Is(err, platform.ErrInvalid):
		return web.Unprocessable(c, "Choose approve, reject, receive or refund.")
	case err != nil:
		return err
	}
	h.web.Audit(c, "return "+action, "return "+web.Itoa(id), "restock", restock)
	msg := fmt.Sprintf("Return #%d: %s.", id, views.ReturnStatusText(r.Status))
	if r.Status == returns.Refunded {
		msg = fmt.Sprintf("Return #%d: refunded %s.", id, views.Money(r.RefundCents))
	}
	return h.web.Done(c, msg, "/admin/returns")
}
