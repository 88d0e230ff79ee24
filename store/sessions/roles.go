package sessions

// Role is what a staff account may do in /admin; the HTTP layer maps each
// admin route to the roles that may call it.
type Role string

// The roles. RoleNone is a shopper's.
const (
	RoleNone       Role = ""
	RoleOwner      Role = "owner"      // everything, staff and settings included
	RoleManager    Role = "manager"    // catalog, pricing, orders, returns, customers, reports
	RoleFulfilment Role = "fulfilment" // orders: view, process, ship, deliver
	RoleSupport    Role = "support"    // orders and customers: view, notes, returns up to a limit
	RoleModerator  Role = "moderator"  // the board and reviews
)

// StaffRoles are the roles a staff member can have, most powerful first.
var StaffRoles = []Role{RoleOwner, RoleManager, RoleFulfilment, RoleSupport, RoleModerator}

// ParseRole reads a staff role by name; ok is false for anything else
// (RoleNone included).
func ParseRole(s string) (Role, bool) {
	for _, r := range StaffRoles {
		if string(r) == s {
			return r, true
		}
	}
	return RoleNone, false
}
