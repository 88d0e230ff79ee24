package wiring_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeListPointsDown: the README's architecture list says the
// imports point one way, down the list. Every import of a package of the
// shop (tests aside) goes to its own entry or one below it, and every
// package has an entry.
func TestReadmeListPointsDown(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(readme), "down this list:\n\n```\n")
	block, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatal("the README has no architecture list")
	}
	var order []string
	for _, line := range strings.Split(block, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			order = append(order, strings.TrimSuffix(f[0], "/"))
		}
	}
	// entry is the position of a package's entry: the longest listed
	// path that is the package or holds it.
	entry := func(pkg string) int {
		best, at := -1, -1
		for i, o := range order {
			if (pkg == o || strings.HasPrefix(pkg, o+"/")) && len(o) > best {
				best, at = len(o), i
			}
		}
		return at
	}
	graph, err := packageImports("..", "")
	if err != nil {
		t.Fatal(err)
	}
	for pkg, imports := range graph {
		from := entry(pkg)
		if pkg == "" {
			from = entry("main.go")
		}
		if from < 0 {
			t.Errorf("%q has no entry in the README's list", pkg)
			continue
		}
		for _, imp := range imports {
			rel, ok := strings.CutPrefix(imp, "storefront/")
			if !ok {
				continue
			}
			if to := entry(rel); to < from {
				t.Errorf("%s imports %s, which the README lists above it", order[from], rel)
			}
		}
	}
}
