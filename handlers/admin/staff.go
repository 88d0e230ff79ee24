package admin

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/mail"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/views"
)

// Staff is the team: who has a role, invitations, role changes.
type Staff interface {
	Staff(ctx context.Context) ([]sessions.StaffMember, error)
	InviteStaff(ctx context.Context, email string, role sessions.Role, invitedBy int64) error
	SetRole(ctx context.Context, actorID, userID int64, role sessions.Role) (sessions.StaffMember, error)
	EndUserSessions(ctx context.Context, userID int64, keep string) (int, error)
}

// Staff is GET /admin/staff: every member with their role, and the
// invitation form.
func (h *Handler) Staff(c echo.Context) error {
	return h.staffPage(c, http.StatusOK, views.StaffData{Role: string(sessions.RoleFulfilment)})
}

func (h *Handler) staffPage(c echo.Context, status int, d views.StaffData) error {
	members, err := h.staff.Staff(c.Request().Context())
	if err != nil {
		return err
	}
	for _, m := range members {
		d.Staff = append(d.Staff, views.StaffRow{ID: m.ID, Username: m.Username, Email: m.Email, Role: string(m.Role)})
	}
	for _, r := range sessions.StaffRoles {
		d.Roles = append(d.Roles, string(r))
	}
	return web.Render(c, status, views.StaffPage(h.web.Chrome(c, "Staff"), d))
}

// InviteStaff is POST /admin/staff (email, role): an invitation link goes
// to the address, made in the same transaction as its email (the outbox
// keeps a placeholder where the link goes; the link is made as the email
// is sent). A bad address or a role nobody has is a 422 and sends nothing.
func (h *Handler) InviteStaff(c echo.Context) error {
	typed, roleText := c.FormValue("email"), c.FormValue("role")
	d := views.StaffData{Email: typed, Role: roleText, Errors: map[string]string{}}
	email, err := mail.ParseAddress(typed)
	if err != nil {
		d.Errors["email"] = "Give one email address, such as name@example.com."
	}
	role, ok := sessions.ParseRole(roleText)
	if !ok {
		d.Errors["role"] = "Choose one of the roles: owner, manager, fulfilment, support or moderator."
	}
	if len(d.Errors) > 0 {
		return h.staffPage(c, http.StatusUnprocessableEntity, d)
	}
	if err := h.staff.InviteStaff(c.Request().Context(), email, role, web.SessionOf(c).UserID); err != nil {
		return err
	}
	h.web.Audit(c, "invite staff", email, "role", string(role))
	return h.web.Done(c, fmt.Sprintf("An invitation to join as %s went to %s.", role, email), "/admin/staff")
}

// SetStaffRole is POST /admin/staff/:id/role (role). The last owner cannot
// be demoted (422); a role nobody has is a 422; the member has the new
// role on their very next request.
func (h *Handler) SetStaffRole(c echo.Context) error {
	role, ok := sessions.ParseRole(c.FormValue("role"))
	if !ok {
		return h.staffRefused(c, "Choose one of the roles: owner, manager, fulfilment, support or moderator.")
	}
	return h.changeStaff(c, role)
}

// RemoveStaff is POST /admin/staff/:id/remove: the account loses its role
// (it stays a shopper's account) and every session it has ends, so it is
// out of /admin at once. The last owner cannot be removed (422).
func (h *Handler) RemoveStaff(c echo.Context) error {
	return h.changeStaff(c, sessions.RoleNone)
}

func (h *Handler) changeStaff(c echo.Context, role sessions.Role) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no staff member with that number.")
	}
	ctx := c.Request().Context()
	m, err := h.staff.SetRole(ctx, web.SessionOf(c).UserID, id, role)
	switch {
	case errors.Is(err, platform.ErrNotFound):
		return web.NotFound("There is no staff member with that number.")
	case errors.Is(err, sessions.ErrLastOwner):
		return h.staffRefused(c, "The shop's last owner cannot be demoted or removed: make someone else an owner first.")
	case errors.Is(err, sessions.ErrNotOwner):
		return web.Forbidden(c)
	case err != nil:
		return err
	}
	if role == sessions.RoleNone {
		if _, err := h.staff.EndUserSessions(context.WithoutCancel(ctx), m.ID, ""); err != nil {
			return err
		}
		h.web.Audit(c, "remove staff", "user "+m.Username)
		return h.web.Done(c, m.Username+" is no longer on the staff and was signed out everywhere.", "/admin/staff")
	}
	h.web.Audit(c, "set staff role", "user "+m.Username, "role", string(role))
	return h.web.Done(c, fmt.Sprintf("%s is now %s.", m.Username, role), "/admin/staff")
}

// staffRefused is a refused staff change: 422 with why, on the staff page
// (JSON {"error"} for a script).
func (h *Handler) staffRefused(c echo.Context, msg string) error {
	if web.WantsJSON(c) {
		return web.Unprocessable(c, msg)
	}
	return h.staffPage(c, http.StatusUnprocessableEntity, views.StaffData{Error: msg, Role: string(sessions.RoleFulfilment)})
}
