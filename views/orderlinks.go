package views

import "strings"

// returnAction is where the order page's return form posts: the member's
// order route, or for a guest the order's signed link with "/returns"
// before its key.
func (d OrderData) returnAction() string {
	if d.Link != "" {
		return strings.Replace(d.Link, "?", "/returns?", 1)
	}
	return "/orders/" + i64(d.ID) + "/returns"
}
