package web

import (
	"errors"
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"

	"storefront/store/audit"
	"storefront/store/platform"
	"storefront/store/sessions"
)

// Perm is one group of admin routes; each staff role is granted some.
type Perm string

// The groups of admin routes (routes.go gives each admin route one).
const (
	PermStaff      Perm = "staff"      // any staff member: the admin's first page
	PermCatalog    Perm = "catalog"    // items, variants, pictures, the CSV import and export
	PermPricing    Perm = "pricing"    // discount codes, delivery zones, tax rates
	PermOrders     Perm = "orders"     // reading orders
	PermFulfil     Perm = "fulfil"     // moving orders along: process, ship, deliver
	PermNotes      Perm = "notes"      // the staff's notes on an order
	PermReturns    Perm = "returns"    // returns and their refunds (support's up to a limit)
	PermRefunds    Perm = "refunds"    // refunds owed, and cancelling a paid order (which refunds it)
	PermReports    Perm = "reports"    // sales, the business dashboard and the orders' exports
	PermModeration Perm = "moderation" // the board, reviews, bans
	PermSettings   Perm = "settings"   // the shop's settings, home page, outbox, caches, system
	PermTeam       Perm = "team"       // the staff and the audit log
)

// grants are what each role may do; an owner may do everything.
var grants = map[sessions.Role][]Perm{
	sessions.RoleOwner: {PermStaff, PermCatalog, PermPricing, PermOrders, PermFulfil, PermNotes, PermReturns, PermRefunds,
		PermReports, PermModeration, PermSettings, PermTeam},
	sessions.RoleManager:    {PermStaff, PermCatalog, PermPricing, PermOrders, PermFulfil, PermNotes, PermReturns, PermRefunds, PermReports},
	sessions.RoleFulfilment: {PermStaff, PermOrders, PermFulfil},
	sessions.RoleSupport:    {PermStaff, PermOrders, PermNotes, PermReturns},
	sessions.RoleModerator:  {PermStaff, PermModeration},
}

// May reports whether role may use the routes of group p.
func May(role sessions.Role, p Perm) bool { return slices.Contains(grants[role], p) }

// StaffRules are the admin routes' groups by method and route pattern,
// filled by routes.go as it registers each admin route. An admin route
// missing here refuses everyone (RequireStaff).
type StaffRules struct {
	rules map[string]map[string]Perm // path -> method -> group
}

// NewStaffRules returns an empty table.
func NewStaffRules() *StaffRules { return &StaffRules{rules: map[string]map[string]Perm{}} }

// Add gives the route method path (an Echo pattern such as
// "/admin/items/:id") its group.
func (r *StaffRules) Add(method, path string, p Perm) {
	if r.rules[path] == nil {
		r.rules[path] = map[string]Perm{}
	}
	r.rules[path][method] = p
}

// Rule is the group of a route; ok is false for a route without one.
func (r *StaffRules) Rule(method, path string) (Perm, bool) {
	p, ok := r.rules[path][method]
	return p, ok
}

// MayRead reports whether role may open the page at path (a GET route).
func (r *StaffRules) MayRead(role sessions.Role, path string) bool {
	p, ok := r.Rule(http.MethodGet, path)
	return ok && May(role, p)
}

// adminNotFound is the pattern Echo gives an unknown path under /admin.
const adminNotFound = "/admin/*"

// RequireStaff guards every admin route: a guest is sent to sign in; an
// account without a staff role, or whose role may not use the route's
// group, gets 403; a route without a group refuses everyone. The role is
// read from the database on every request (never from the cookie), so a
// member removed or given another role has it on their very next request.
// The request's context then carries the member as the audit log's actor.
func (k *Kit) RequireStaff(rules *StaffRules) echo.MiddlewareFunc {
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			s := SessionOf(c)
			if !s.SignedIn() {
				back := "/admin"
				if c.Request().Method == http.MethodGet {
					back = LocalPath(c.Request().URL.RequestURI(), "/admin")
				}
				return k.sendToSignIn(c, back, "Sign in as a member of the shop's staff.")
			}
			u, err := k.staffMember(c, s)
			if err != nil {
				return err
			}
			role := u.Role
			path := c.Path()
			p, ok := rules.Rule(c.Request().Method, path)
			switch {
			case ok && !May(role, p):
				return forbiddenFor(role)
			case !ok && path != adminNotFound && len(rules.rules[path]) == 0:
				// A route nobody gave a group: no one may use it.
				return echo.NewHTTPError(http.StatusForbidden, "This page has no staff rule yet, so no one may use it.")
			}
			s.Role = role
			NoStore(c)
			// A role that must sign in with two factors and has not set
			// them up is led to do so before any admin page.
			if err := k.requireTwoFactor(c, u); err != nil {
				return err
			}
			ctx := audit.WithActor(c.Request().Context(), audit.Actor{ID: s.UserID, Name: s.UserName, Addr: c.RealIP()})
			c.SetRequest(c.Request().WithContext(ctx))
			return next(c)
		}
	}
}

// staffMember is the signed-in account by the database: 403 for an
// account without a staff role (the cookie is never trusted for the role).
func (k *Kit) staffMember(c echo.Context, s *Session) (sessions.User, error) {
	forbidden := echo.NewHTTPError(http.StatusForbidden, "This page is for the shop's staff.")
	u, err := k.deps.Sessions.UserByID(c.Request().Context(), s.UserID)
	if errors.Is(err, platform.ErrNotFound) || (err == nil && u.Role == sessions.RoleNone) {
		return sessions.User{}, forbidden
	}
	return u, err
}

// forbiddenFor is the 403 of a staff member whose role may not use a page.
func forbiddenFor(role sessions.Role) error {
	return echo.NewHTTPError(http.StatusForbidden, "Your role ("+string(role)+") may not use this page. "+
		"Ask an owner if you need it; "+roleSays[role]+".")
}

// roleSays is what each role may do, in words, for the 403 page.
var roleSays = map[sessions.Role]string{
	sessions.RoleOwner:      "an owner may do everything",
	sessions.RoleManager:    "a manager runs the catalog, pricing, orders, returns and reports",
	sessions.RoleFulfilment: "fulfilment views, processes, ships and delivers orders",
	sessions.RoleSupport:    "support views orders, writes notes and handles returns up to a refund limit",
	sessions.RoleModerator:  "a moderator looks after the board and the reviews",
}

// Forbidden answers 403 for a staff member whose role may not take a step
// a route allows others (such as cancelling a paid order).
func Forbidden(c echo.Context) error { return forbiddenFor(SessionOf(c).Role) }
