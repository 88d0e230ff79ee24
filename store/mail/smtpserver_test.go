package mail_test

import (
	"errors"
	"io"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"

	"github.com/emersion/go-smtp"
)

// received is one message the test server took.
type received struct {
	From, To  string
	MessageID string
	Subject   string
	Raw       string
}

// smtpServer is a real SMTP server on a loopback port, which the test can
// stop and start again on the same port (an outage) and make refuse or
// drop messages.
type smtpServer struct {
	t    *testing.T
	addr string
	mu   sync.Mutex
	srv  *smtp.Server
	ln   net.Listener
	msgs []received
	// reply, when set, answers DATA's end with this error instead of
	// accepting; drop hangs up after reading the data without answering.
	reply *smtp.SMTPError
	drop  bool
	// taken, when set, is called with each message the server takes,
	// before it answers.
	taken func(received)
}

func startSMTP(t *testing.T) *smtpServer {
	t.Helper()
	s := &smtpServer{t: t}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	s.serve(ln)
	t.Cleanup(s.stop)
	return s
}

func (s *smtpServer) serve(ln net.Listener) {
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) { return &smtpSession{s: s, c: c}, nil }))
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	s.mu.Lock()
	s.srv, s.ln = srv, ln
	s.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// stop closes the server: connections are refused until start.
func (s *smtpServer) stop() {
	s.mu.Lock()
	srv, ln := s.srv, s.ln
	s.srv, s.ln = nil, nil
	s.mu.Unlock()
	if srv != nil {
		// The listener is closed here too: Close alone misses one that
		// Serve has not registered yet.
		_ = ln.Close()
		_ = srv.Close()
	}
}

// start listens again on the same port.
func (s *smtpServer) start() {
	s.t.Helper()
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		s.t.Fatal(err)
	}
	s.serve(ln)
}

func (s *smtpServer) url() string { return "smtp://" + s.addr }

// onTaken calls f with each message the server takes, before it answers.
func (s *smtpServer) onTaken(f func(received)) {
	s.mu.Lock()
	s.taken = f
	s.mu.Unlock()
}

func (s *smtpServer) set(reply *smtp.SMTPError, drop bool) {
	s.mu.Lock()
	s.reply, s.drop = reply, drop
	s.mu.Unlock()
}

// messages returns what the server took, in order.
func (s *smtpServer) messages() []received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]received(nil), s.msgs...)
}

// countByID counts the messages received per Message-ID.
func (s *smtpServer) countByID() map[string]int {
	n := map[string]int{}
	for _, m := range s.messages() {
		n[m.MessageID]++
	}
	return n
}

type smtpSession struct {
	s        *smtpServer
	c        *smtp.Conn
	from, to string
}

func (x *smtpSession) Reset()        { x.from, x.to = "", "" }
func (x *smtpSession) Logout() error { return nil }
func (x *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	x.from = from
	return nil
}
func (x *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.to = to
	return nil
}

func (x *smtpSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := mail.ReadMessage(strings.NewReader(string(raw)))
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	reply, drop, taken := x.s.reply, x.s.drop, x.s.taken
	msg := received{From: x.from, To: x.to, MessageID: m.Header.Get("Message-Id"), Subject: m.Header.Get("Subject"), Raw: string(raw)}
	if reply == nil || drop {
		// A dropped answer may still be a delivered message: that is
		// the case the outbox must never send twice.
		x.s.msgs = append(x.s.msgs, msg)
	}
	x.s.mu.Unlock()
	if taken != nil && (reply == nil || drop) {
		taken(msg)
	}
	if drop {
		_ = x.c.Conn().Close()
		return errors.New("hung up")
	}
	if reply != nil {
		return reply
	}
	return nil
}
