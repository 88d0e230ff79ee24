package views_test

import (
	"go/build"
	"strings"
	"testing"
)

// TestPackageDocIsOurs: the package's synopsis is doc.go's, not a line a
// generated file put above its package clause (templ's version line, when
// generated without -include-version=false).
func TestPackageDocIsOurs(t *testing.T) {
	for _, dir := range []string{".", "email"} {
		pkg, err := build.ImportDir(dir, build.ImportComment)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(pkg.Doc, "Package "+pkg.Name+" ") {
			t.Errorf("%s: the package's synopsis is %q: generate with `go tool templ generate -include-version=false`", pkg.ImportPath, pkg.Doc)
		}
	}
}
