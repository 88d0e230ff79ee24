package mail

import (
	"errors"
	"net/mail"
	"strings"
)

// ErrBadAddress means an email address the shop does not accept.
var ErrBadAddress = errors.New("not an email address the shop accepts")

// MaxAddressLen is the longest address accepted (RFC 5321's path limit).
const MaxAddressLen = 254

// ParseAddress checks an email address a visitor typed and returns it
// trimmed. The shop accepts plain addresses only: local@domain, in ASCII,
// the local part of letters, digits and . _ % + - (no quotes, comments or
// display names), and a domain of at least two dot-separated labels of
// letters, digits and hyphens ending in a letter label (no IP literals, no
// "localhost"). Anything else is ErrBadAddress: addresses a mail server
// may read differently from the shop are refused rather than guessed at.
func ParseAddress(s string) (string, error) {
	s = strings.TrimSpace(s)
	if len(s) == 0 || len(s) > MaxAddressLen {
		return "", ErrBadAddress
	}
	local, domain, ok := strings.Cut(s, "@")
	if !ok || !validLocal(local) || !validDomain(domain) {
		return "", ErrBadAddress
	}
	// The standard parser must read it as the same plain address.
	if a, err := mail.ParseAddress(s); err != nil || a.Name != "" || a.Address != s {
		return "", ErrBadAddress
	}
	return s, nil
}

func validLocal(l string) bool {
	if l == "" || len(l) > 64 || l[0] == '.' || l[len(l)-1] == '.' || strings.Contains(l, "..") {
		return false
	}
	for _, r := range l {
		if !(isAlnum(r) || strings.ContainsRune("._%+-", r)) {
			return false
		}
	}
	return true
}

func validDomain(d string) bool {
	labels := strings.Split(d, ".")
	if len(d) > 253 || len(labels) < 2 {
		return false
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for _, r := range l {
			if !isAlnum(r) && r != '-' {
				return false
			}
		}
	}
	tld := labels[len(labels)-1]
	for _, r := range tld {
		if r >= '0' && r <= '9' {
			return false // an IP address, or a made-up top-level domain
		}
	}
	return len(tld) >= 2
}

func isAlnum(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
}

// ParseFrom reads MAIL_FROM: "Name <addr@domain>" or a bare address. The
// sender may be on a local domain ("shop@localhost"), unlike a shopper's
// address.
func ParseFrom(s string) (*mail.Address, error) {
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, errors.New("MAIL_FROM must be an address such as \"Shop <shop@example.com>\"")
	}
	if _, domain, _ := strings.Cut(a.Address, "@"); domain == "" {
		return nil, errors.New("MAIL_FROM needs a domain")
	}
	return a, nil
}
