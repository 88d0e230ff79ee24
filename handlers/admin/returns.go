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
	returns.Refunding: {returns.ActRetryRefund},
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
		if r.Status == returns.Refunding {
			if err := h.owedState(c, &v, r); err != nil {
				return err
			}
		}
		d.Returns = append(d.Returns, v)
	}
	return web.Render(c, http.StatusOK, views.AdminReturnsPage(h.web.Chrome(c, "Returns"), d))
}

// owedState shows a refunding return's refund as the ledger has it: owed
// (tried again), refused, or never taken; and offers to settle it by hand.
func (h *Handler) owedState(c echo.Context, v *views.ReturnView, r returns.Return) error {
	v.SettleByHand = true
	rf, ok, err := h.orders.RefundFor(c.Request().Context(), r.OrderID, orders.ReturnReason(r.ID))
	switch {
	case err != nil:
		return err
	case !ok:
		v.Owed, v.OwedError = "owed", "the refund was not asked for yet"
	case rf.Status == orders.RefundFailed:
		v.Owed, v.OwedError = "refused", rf.LastError
	case rf.Status == orders.RefundOwed:
		v.Owed, v.OwedError = "owed", rf.LastError
	}
	return nil
}

// ReturnSettle is POST /admin/returns/:id/settle (note): a return stuck in
// refunding is marked refunded by hand, the note saying how the money went
// back. Another status, a missing or long note, or a refund being tried
// at this moment is a 422 and changes nothing.
func (h *Handler) ReturnSettle(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no return with that number.")
	}
	r, err := h.returns.SettleByHand(c.Request().Context(), id, c.FormValue("note"), orders.AdminActor(web.SessionOf(c).UserName))
	var me *returns.MoveError
	switch {
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is no return with that number.")
	case errors.As(err, &me):
		return web.Unprocessable(c, fmt.Sprintf("Return #%d is %s: only a refund under way can be settled by hand.", id, views.ReturnStatusText(me.From)))
	case errors.Is(err, orders.ErrNote):
		return web.Unprocessable(c, fmt.Sprintf("Say how the money went back, in 1 to %d characters.", orders.MaxRefundNoteLen))
	case errors.Is(err, orders.ErrRefundNotOwed):
		return web.Unprocessable(c, fmt.Sprintf("The refund of return #%d is being tried at this moment; look again in a minute.", id))
	case err != nil:
		return err
	}
	h.web.Audit(c, "return settled by hand", "return "+web.Itoa(id), "refund_cents", r.RefundCents)
	return h.web.Done(c, fmt.Sprintf("Return #%d: refunded %s by hand.", id, views.Money(c.Request().Context(), r.RefundCents)), "/admin/returns")
}

// ReturnAct is POST /admin/returns/:id (action = approve, reject, receive,
// refund or retry_refund; restock=1 with receive puts the stock back). A
// step the return's status does not allow, an unknown action or a refund
// past what was paid is a 422 and changes nothing; the shopper is emailed
// at each step. A refund the payment method could not give back yet
// leaves the return refunding, its refund owed and tried again.
func (h *Handler) ReturnAct(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no return with that number.")
	}
	action := c.FormValue("action")
	restock := c.FormValue("restock") == "1"
	if err := h.checkRefundLimit(c, id, action); err != nil {
		return err
	}
	r, err := h.returns.Act(c.Request().Context(), id, action, restock, orders.AdminActor(web.SessionOf(c).UserName))
	var me *returns.MoveError
	switch {
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is no return with that number.")
	case errors.As(err, &me):
		return web.Unprocessable(c, fmt.Sprintf("Return #%d is %s: it cannot be given %q.", id, views.ReturnStatusText(me.From), action))
	case errors.Is(err, orders.ErrRefundTooLarge):
		return web.Unprocessable(c, fmt.Sprintf("Return #%d cannot be refunded: that would give back more than was paid for the order.", id))
	case errors.Is(err, orders.ErrRefundNotOwed):
		return web.Unprocessable(c, fmt.Sprintf("The refund of return #%d is being tried at this moment; look again in a minute.", id))
	case errors.Is(err, platform.ErrInvalid):
		return web.Unprocessable(c, "Choose approve, reject, receive or refund.")
	case err != nil:
		return err
	}
	h.web.Audit(c, "return "+action, "return "+web.Itoa(id), "restock", restock)
	msg := fmt.Sprintf("Return #%d: %s.", id, views.ReturnStatusText(r.Status))
	switch r.Status {
	case returns.Refunded:
		msg = fmt.Sprintf("Return #%d: refunded %s.", id, views.Money(c.Request().Context(), r.RefundCents))
	case returns.Refunding:
		msg = fmt.Sprintf("Return #%d: the refund of %s could not be given back yet (its state is on the list: owed ones are tried again by themselves).", id, views.Money(c.Request().Context(), r.RefundCents))
	}
	return h.web.Done(c, msg, "/admin/returns")
}

// checkRefundLimit lets a role without the refunds group (support) give
// a return's refund only up to SUPPORT_REFUND_LIMIT: a larger one is a 403
// saying so, and changes nothing.
func (h *Handler) checkRefundLimit(c echo.Context, id int64, action string) error {
	role := web.SessionOf(c).Role
	if (action != returns.ActRefund && action != returns.ActRetryRefund) || web.May(role, web.PermRefunds) {
		return nil
	}
	ctx := c.Request().Context()
	r, err := h.returns.Get(ctx, id)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no return with that number.")
	}
	if err != nil {
		return err
	}
	cents, err := h.returns.RefundCents(ctx, r)
	if err != nil {
		return err
	}
	if cents > h.cfg.SupportRefundLimit {
		return echo.NewHTTPError(http.StatusForbidden, fmt.Sprintf("Return #%d refunds %s, more than the %s your role (%s) may give back: ask a manager or an owner.",
			id, views.Money(ctx, cents), views.Money(ctx, h.cfg.SupportRefundLimit), role))
	}
	return nil
}
