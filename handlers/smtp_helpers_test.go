package handlers_test

import (
	"context"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	storemail "storefront/store/mail"
	"storefront/wiring"
)

// smtpInbox is a real SMTP server on a loopback port that keeps every
// message it is given, each as its recipient and its text part.
type smtpInbox struct {
	addr string
	mu   sync.Mutex
	msgs []delivered
}

// delivered is one message the server took.
type delivered struct{ To, Subject, Text string }

func newSMTPInbox(t *testing.T) *smtpInbox {
	t.Helper()
	s := &smtpInbox{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &inboxSession{s: s}, nil }))
	srv.Domain = "localhost"
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = ln.Close(); _ = srv.Close() })
	return s
}

// options sends the app's mail to this server (SMTP_URL), polling fast.
func (s *smtpInbox) options(t *testing.T) func(*wiring.Options) {
	cfg, err := storemail.ParseSMTPURL("smtp://" + s.addr)
	if err != nil {
		t.Fatal(err)
	}
	return func(o *wiring.Options) {
		o.Mail = storemail.Options{SMTP: cfg, Poll: 20 * time.Millisecond, RetryBase: 50 * time.Millisecond}
	}
}

// to returns the messages to one address whose subject contains subject.
func (s *smtpInbox) to(addr, subject string) []delivered {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []delivered
	for _, m := range s.msgs {
		if strings.Contains(m.To, addr) && strings.Contains(m.Subject, subject) {
			out = append(out, m)
		}
	}
	return out
}

// runWorkers runs the app's background loops (the outbox's delivery among
// them) until the test ends.
func (a *app) runWorkers() {
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, w := range a.store.Workers() {
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	a.t.Cleanup(func() { cancel(); wg.Wait() })
}

type inboxSession struct {
	s  *smtpInbox
	to string
}

func (x *inboxSession) Reset()                                    {}
func (x *inboxSession) Logout() error                             { return nil }
func (x *inboxSession) Mail(string, *smtp.MailOptions) error      { return nil }
func (x *inboxSession) Rcpt(to string, _ *smtp.RcptOptions) error { x.to = to; return nil }
func (x *inboxSession) Data(r io.Reader) error {
	msg, err := mail.ReadMessage(r)
	if err != nil {
		return err
	}
	subject, _ := new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject"))
	text, err := plainText(msg.Header.Get("Content-Type"), msg.Body)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	x.s.msgs = append(x.s.msgs, delivered{To: x.to, Subject: subject, Text: text})
	x.s.mu.Unlock()
	return nil
}

// plainText is a message's text/plain part, its transfer encoding undone.
func plainText(contentType string, body io.Reader) (string, error) {
	media, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(media, "multipart/") {
		b, err := io.ReadAll(body)
		return string(b), err
	}
	mr := multipart.NewReader(body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return "", err
		}
		if !strings.HasPrefix(p.Header.Get("Content-Type"), "text/html") {
			return plainText(p.Header.Get("Content-Type"), p)
		}
	}
}
