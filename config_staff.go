package main

import (
	"slices"
	"strings"
)

// staffRoles are the role names STAFF_2FA may list.
var staffRoles = []string{"owner", "manager", "fulfilment", "support", "moderator"}

// roles reads a comma-separated list of staff roles; "none" (the
// default) or an empty value is no role.
func (p *envParser) roles(name, def string) []string {
	v := strings.TrimSpace(p.getenv(name))
	if v == "" {
		v = def
	}
	if strings.EqualFold(v, "none") {
		return nil
	}
	var out []string
	for _, r := range strings.Split(v, ",") {
		r = strings.ToLower(strings.TrimSpace(r))
		if !slices.Contains(staffRoles, r) {
			p.fail(name, "unknown role "+quote(r)+": use none or a list of "+strings.Join(staffRoles, ", "))
			return nil
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

func quote(s string) string { return "\"" + s + "\"" }
