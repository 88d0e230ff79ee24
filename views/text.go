package views

import (
	"net/url"
	"regexp"
	"strings"
)

// Readers write plain text: an article's body and comments. Pages show it
// as typed, escaped like any other text (markup in it is shown, never
// run), with blank lines starting paragraphs, single line breaks kept,
// and web addresses (http and https only) made into links marked as the
// readers' own (rel="nofollow ugc noopener").

// textPart is a run of a paragraph: plain text, or a link (Href set) whose
// text is the address as typed.
type textPart struct {
	Text string
	Href string
}

// addressRE finds what looks like a web address: http:// or https:// and
// everything up to a space or a character no address holds unescaped.
var addressRE = regexp.MustCompile(`(?i)\bhttps?://[^\s<>"'\x60{}|\\^]+`)

// paragraphs splits text into paragraphs (at blank lines), each into
// lines, each into parts.
func paragraphs(text string) [][][]textPart {
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	var out [][][]textPart
	var para [][]textPart
	for line := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(line) == "" {
			if len(para) > 0 {
				out, para = append(out, para), nil
			}
			continue
		}
		para = append(para, lineParts(line))
	}
	if len(para) > 0 {
		out = append(out, para)
	}
	return out
}

// lineParts cuts a line into text and the links in it.
func lineParts(line string) []textPart {
	var parts []textPart
	at := 0
	for _, m := range addressRE.FindAllStringIndex(line, -1) {
		addr := trimAddress(line[m[0]:m[1]])
		href := linkTarget(addr)
		if href == "" {
			continue
		}
		if m[0] > at {
			parts = append(parts, textPart{Text: line[at:m[0]]})
		}
		parts = append(parts, textPart{Text: addr, Href: href})
		at = m[0] + len(addr)
	}
	if at < len(line) {
		parts = append(parts, textPart{Text: line[at:]})
	}
	return parts
}

// trimAddress drops what a sentence puts after an address: closing
// punctuation, and a closing bracket that opens nowhere in the address
// (a Wikipedia page's "(disambiguation)" keeps its own).
func trimAddress(addr string) string {
	for addr != "" {
		last := addr[len(addr)-1]
		switch {
		case strings.IndexByte(".,;:!?*", last) >= 0:
		case last == ')' && strings.Count(addr, "(") < strings.Count(addr, ")"):
		case last == ']' && strings.Count(addr, "[") < strings.Count(addr, "]"):
		default:
			return addr
		}
		addr = addr[:len(addr)-1]
	}
	return addr
}

// linkTarget is the address a link may point to, or "" when it may not be
// a link: only http and https to a named host, without credentials.
func linkTarget(addr string) string {
	u, err := url.Parse(addr)
	if err != nil || u.Host == "" || u.Hostname() == "" || u.User != nil {
		return ""
	}
	if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
		return ""
	}
	return u.String()
}
