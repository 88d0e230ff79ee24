package views

// plural is the word for n things: one when n is 1, else many. Every
// count shown in words goes through it (templates with the number in its
// own element call it beside the number; text elsewhere uses Counted).
func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Counted writes n (with thousands separators) and its word: "1 item",
// "0 items", "1,200 sessions".
func Counted(n int64, one, many string) string { return Count(n) + " " + plural(n, one, many) }
