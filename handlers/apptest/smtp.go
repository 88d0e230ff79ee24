package apptest

import (
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"
)

// SMTPInbox is a real SMTP server (emersion/go-smtp) on a loopback port
// that keeps every message it takes: where a test's shop sends its email
// (SMTP_URL), to read the messages as they left.
type SMTPInbox struct {
	addr   string
	mu     sync.Mutex
	raw    []string
	refuse bool
}

// Refuse makes the inbox refuse every message for good (a 554 at the end
// of the data) until Refuse(false).
func (in *SMTPInbox) Refuse(on bool) {
	in.mu.Lock()
	in.refuse = on
	in.mu.Unlock()
}

// StartSMTP starts an inbox that stops when the test ends.
func StartSMTP(t testing.TB) *SMTPInbox {
	t.Helper()
	in := &SMTPInbox{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	in.addr = ln.Addr().String()
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &inboxSession{in: in}, nil }))
	srv.Domain = "localhost"
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = ln.Close(); _ = srv.Close() })
	return in
}

// URL is the inbox as SMTP_URL.
func (in *SMTPInbox) URL() string { return "smtp://" + in.addr }

// Messages returns the raw messages taken, oldest first, with their
// quoted-printable soft breaks and "=3D" undone so that links read whole.
func (in *SMTPInbox) Messages() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]string, len(in.raw))
	for i, r := range in.raw {
		out[i] = strings.ReplaceAll(strings.ReplaceAll(r, "=\r\n", ""), "=3D", "=")
	}
	return out
}

// accountLink is a password reset or address confirmation link in a
// message: its path and query.
var accountLink = regexp.MustCompile(`/(password/reset|account/email/verify)\?token=([0-9]+\.[A-Za-z0-9_-]{43})`)

// Link returns the path and the token of the newest account link (a
// password reset or an address confirmation) in a message to address
// with subject, or "" when none arrived.
func (in *SMTPInbox) Link(to, subject string) (path, token string) {
	ms := in.Messages()
	for i := len(ms) - 1; i >= 0; i-- {
		if strings.Contains(ms[i], "To: <"+to+">") && strings.Contains(ms[i], "Subject: "+subject) {
			if l := accountLink.FindStringSubmatch(ms[i]); l != nil {
				return l[0], l[2]
			}
		}
	}
	return "", ""
}

type inboxSession struct{ in *SMTPInbox }

func (x *inboxSession) Reset()                               {}
func (x *inboxSession) Logout() error                        { return nil }
func (x *inboxSession) Mail(string, *smtp.MailOptions) error { return nil }
func (x *inboxSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (x *inboxSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.in.mu.Lock()
	defer x.in.mu.Unlock()
	if x.in.refuse {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "refused by the test"}
	}
	x.in.raw = append(x.in.raw, string(b))
	return nil
}
