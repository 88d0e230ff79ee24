package platform_test

import (
	"testing"

	"storefront/store/platform"
)

func TestSizedLRUKeepsWithinItsBytes(t *testing.T) {
	l := platform.NewSizedLRU[string](10)
	l.Add("a", "A", 4)
	l.Add("b", "B", 4)
	if _, ok := l.Get("a"); !ok { // a is now the most recently used
		t.Fatal("a went early")
	}
	l.Add("c", "C", 4) // 12 bytes: the least recently used (b) goes
	if _, ok := l.Peek("b"); ok {
		t.Error("b outlived the bound")
	}
	if n, used := l.Len(); n != 2 || used != 8 {
		t.Errorf("%d entries of %d bytes, want 2 of 8", n, used)
	}
	l.Add("a", "A2", 2) // replacing counts the new size only
	if v, _ := l.Peek("a"); v != "A2" {
		t.Errorf("a = %q", v)
	}
	if _, used := l.Len(); used != 6 {
		t.Errorf("%d bytes after replacing, want 6", used)
	}
	l.Add("huge", "H", 11) // larger than the bound: nothing can stay
	if n, used := l.Len(); n != 0 || used != 0 {
		t.Errorf("%d entries of %d bytes after an oversized add", n, used)
	}
	l.Add("d", "D", 1)
	l.Clear()
	if n, _ := l.Len(); n != 0 {
		t.Error("clear left entries")
	}
}

func TestPlaceholders(t *testing.T) {
	if got := platform.Placeholders(3, 3); got != "$3, $4, $5" {
		t.Errorf("Placeholders(3, 3) = %q", got)
	}
	if got := platform.Placeholders(1, 0); got != "" {
		t.Errorf("Placeholders(1, 0) = %q", got)
	}
	ph, args := platform.InList(2, []int64{7, 9})
	if ph != "$2, $3" || len(args) != 2 || args[1] != int64(9) {
		t.Errorf("InList = %q %v", ph, args)
	}
	if got := platform.ValueRows(1, 2, 3); got != "($1, $2, $3), ($4, $5, $6)" {
		t.Errorf("ValueRows(1, 2, 3) = %q", got)
	}
}
