package views

import (
	"bytes"
	"context"
	"testing"
)

// TestPlainTextIsEscapedWithLinks: a reader's text shows as typed
// (markup escaped, never run), paragraphs at blank lines, line breaks
// kept, and only http and https addresses made links, marked as the
// readers' own, without the punctuation after them.
func TestPlainTextIsEscapedWithLinks(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "Just words.", "<p>Just words.</p>"},
		{"paragraphs and breaks", "one\ntwo\n\n\nthree\r\n", "<p>one<br>two</p><p>three</p>"},
		{"markup is text", `<script>alert("x")</script> <b>bold</b>`,
			"<p>&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &lt;b&gt;bold&lt;/b&gt;</p>"},
		{"a link", "See https://example.com/care?x=1&y=2.",
			`<p>See <a href="https://example.com/care?x=1&amp;y=2" rel="nofollow ugc noopener">https://example.com/care?x=1&amp;y=2</a>.</p>`},
		{"a bracketed link", "(see http://example.com/a_(b)) and [https://example.com/c]",
			`<p>(see <a href="http://example.com/a_(b)" rel="nofollow ugc noopener">http://example.com/a_(b)</a>) and [<a href="https://example.com/c" rel="nofollow ugc noopener">https://example.com/c</a>]</p>`},
		{"no other schemes", "javascript:alert(1) data:text/html,hi ftp://example.com",
			"<p>javascript:alert(1) data:text/html,hi ftp://example.com</p>"},
		{"no quotes in a link", `https://example.com/"onmouseover="alert(1)`,
			`<p><a href="https://example.com/" rel="nofollow ugc noopener">https://example.com/</a>&#34;onmouseover=&#34;alert(1)</p>`},
		{"no credentials", "https://user:pw@example.com/", "<p>https://user:pw@example.com/</p>"},
		{"no host", "https:///nowhere", "<p>https:///nowhere</p>"},
		{"only spaces", " \n\n \n", ""},
	} {
		var b bytes.Buffer
		if err := plainText(tc.in).Render(context.Background(), &b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
