package pagebody

import (
	"strings"
	"testing"
)

// A fill compressed once for reuse gives the same page and ETag as the
// same markup sent plain, and is smaller on the wire.
func TestCompressedFillMatchesPlain(t *testing.T) {
	p, err := Build([]byte(testPage), 7, "Classic Slate Skillet", 2, 1, "test", LevelStored)
	if err != nil {
		t.Fatal(err)
	}
	if p.HoleCount() != 3 || p.HoleName(0) != "account" || p.HoleName(2) != "recent" {
		t.Fatalf("holes %v", p.Holes())
	}
	account := []byte(`<a href="/account">alice</a> ` + strings.Repeat(`<span class="badge">3</span>`, 40))
	plain := Fills{NewFill(account, FillPlain), nil, NewFill([]byte("<li>Pan</li>"), FillPlain)}
	packed := Fills{NewFill(account, FillCompressed), nil, NewFill([]byte("<li>Pan</li>"), FillCompressed)}
	want := strings.NewReplacer(`<a href="/login">Sign in</a>`, string(account), `<li>Skillet</li>`, "<li>Pan</li>").Replace(testPage)
	a, b := p.GzipFills(nil, plain), p.GzipFills(nil, packed)
	if gunzipSingle(t, a) != want || gunzipSingle(t, b) != want {
		t.Fatal("filled page wrong")
	}
	if len(b) >= len(a) {
		t.Fatalf("compressed fills %d bytes, plain %d", len(b), len(a))
	}
	if p.ETagFills(plain) != p.ETagFills(packed) || p.ETagFills(plain) != p.ETag(map[string][]byte{"account": account, "recent": []byte("<li>Pan</li>")}) {
		t.Fatal("the ETag must depend on the markup, not on how it is sent")
	}
	if p.ETagFills(plain) == p.ETagFills(Fills{plain[0]}) || p.ETagFills(nil) != p.ETag(nil) {
		t.Fatal("the ETag must follow every fill")
	}
	// A fill reused by many responses is never written to.
	before := string(packed[0].comp)
	for range 3 {
		_ = p.GzipFills(make([]byte, 0, 8), packed)
	}
	if string(packed[0].comp) != before {
		t.Fatal("a shared fill changed")
	}
}
