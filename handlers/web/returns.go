package web

import (
	"storefront/store/returns"
	"storefront/views"
)

// ReturnView is a return as the order page and the admin's list show it.
func ReturnView(r returns.Return) views.ReturnView {
	v := views.ReturnView{ID: r.ID, OrderID: r.OrderID, Status: r.Status, Reason: r.Reason, RefundCents: r.RefundCents, Note: r.Note,
		Restocked: r.Restocked, Asked: When(r.CreatedAt), Updated: When(r.UpdatedAt)}
	for _, l := range r.Lines {
		v.Lines = append(v.Lines, views.ReturnLineView{Name: l.Name, Qty: l.Qty, SKU: l.SKU, Variant: l.Variant})
	}
	return v
}
