package pagebody

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestCRC32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200; i++ {
		a := make([]byte, rng.IntN(5000))
		b := make([]byte, rng.IntN(70000))
		for j := range a {
			a[j] = byte(rng.Uint32())
		}
		for j := range b {
			b[j] = byte(rng.Uint32())
		}
		want := crc32.ChecksumIEEE(append(append([]byte{}, a...), b...))
		if got := crc32Combine(crc32.ChecksumIEEE(a), crc32.ChecksumIEEE(b), int64(len(b))); got != want {
			t.Fatalf("combine(%d, %d bytes) = %08x, want %08x", len(a), len(b), got, want)
		}
	}
}

const testPage = `<!DOCTYPE html><html><head><title>Item</title></head><body>` +
	`<header><!--hole:account--><a href="/login">Sign in</a><!--/hole:account--></header>` +
	`<main><!--hole:flash--><!--/hole:flash--><h1>Classic Slate Skillet</h1><p>Lots of text, lots of text, lots of text.</p>` +
	`<ol><!--hole:recent--><li>Skillet</li><!--/hole:recent--></ol></main><footer>end</footer></body></html>`

func gunzipSingle(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	zr.Multistream(false) // one member: browsers that stop after the first see it all
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("gunzip: %v", err)
	}
	if _, err := zr.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("more than one gzip member")
	}
	return string(out)
}

func TestPageGzipFillsHoles(t *testing.T) {
	for _, level := range []int{flate.DefaultCompression, flate.BestSpeed} {
		p, err := Build([]byte(testPage), 7, "Classic Slate Skillet", 2, 1, "test", level)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(p.Holes(), ","); got != "account,flash,recent" {
			t.Fatalf("holes %q", got)
		}
		if got := gunzipSingle(t, p.Gzip(nil, nil)); got != testPage {
			t.Fatalf("anonymous page changed:\n%s", got)
		}
		big := strings.Repeat("<li>x</li>", 20000) // more than one stored block's worth
		fill := map[string][]byte{"account": []byte(`<b>alice</b> 3` + strings.Repeat(" ", 1000)), "flash": []byte("Saved."), "recent": []byte(big), "unknown": []byte("no")}
		want := strings.NewReplacer(`<a href="/login">Sign in</a>`, `<b>alice</b> 3`+strings.Repeat(" ", 1000),
			`<!--hole:flash--><!--/hole:flash-->`, `<!--hole:flash-->Saved.<!--/hole:flash-->`,
			`<li>Skillet</li>`, big).Replace(testPage)
		if got := gunzipSingle(t, p.Gzip(nil, fill)); got != want {
			t.Fatalf("filled page wrong (%d bytes, want %d)", len(got), len(want))
		}
		if html, err := p.HTML(fill); err != nil || string(html) != want {
			t.Fatalf("HTML: %v", err)
		}
		q, err := Decode(p.Encode())
		if err != nil {
			t.Fatal(err)
		}
		if q.ItemID != 7 || q.ItemName != "Classic Slate Skillet" || q.GenItem != 2 || q.GenAll != 1 || q.Digest != p.Digest {
			t.Fatalf("decoded %+v", q)
		}
		if got := gunzipSingle(t, q.Gzip(nil, fill)); got != want {
			t.Fatal("decoded page differs")
		}
		if p.ETag(fill) == p.ETag(nil) || p.ETag(fill) != q.ETag(fill) {
			t.Fatal("ETag must follow the fragments and only them")
		}
		fill["account"] = []byte(`<b>bob</b> 1`)
		if p.ETag(fill) == q.ETag(map[string][]byte{"account": []byte(`<b>alice</b> 3` + strings.Repeat(" ", 1000)), "flash": []byte("Saved."), "recent": []byte(big)}) {
			t.Fatal("another shopper's fragment must change the ETag")
		}
	}
}

func TestPageRejectsBadInput(t *testing.T) {
	for _, html := range []string{"<!--hole:a-->never closed", "<!--hole:a", "<!--hole:-->x<!--/hole:-->"} {
		if _, err := Build([]byte(html), 1, "x", 0, 0, "test", flate.BestSpeed); err == nil {
			t.Errorf("%q: want an error", html)
		}
	}
	p, _ := Build([]byte(testPage), 1, "x", 0, 0, "test", flate.BestSpeed)
	enc := p.Encode()
	for _, b := range [][]byte{nil, []byte("SFPC1"), enc[:len(enc)-1], append(append([]byte{}, enc...), 0), []byte("<html>")} {
		if _, err := Decode(b); err == nil {
			t.Errorf("decoded a broken value of %d bytes", len(b))
		}
	}
}
