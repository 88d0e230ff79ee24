package wiring_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"storefront/store/cart"
	"storefront/store/mail"
	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// outboxCount counts the outbox rows, failing on a read error.
func outboxCount(t *testing.T, st *wiring.Services) int {
	t.Helper()
	var n int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM outbox`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// mailShopper is a signed-in account with an address, and its cart.
func mailShopper(t *testing.T, st *wiring.Services, name string) cart.Owner {
	t.Helper()
	u, err := st.Sessions.Register(t.Context(), name, "password for "+name, name+"@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Sessions.CreateSession(t.Context(), "token-"+name, u.ID); err != nil {
		t.Fatal(err)
	}
	return cart.Owner{UserID: u.ID, Token: "token-" + name}
}

// TestOrderMailInTheOrdersTransaction: the confirmation is written in the
// checkout's transaction and the move's emails in the move's: when a later
// write of the same transaction fails, the order (or the move) and its
// email are gone together, and the stock is untouched.
func TestOrderMailInTheOrdersTransaction(t *testing.T) {
	st := wiringtest.New(t)
	owner := mailShopper(t, st, "rolly")
	base := outboxCount(t, st) // the verification link
	wiringtest.SetStock(t, st, 7, 5)
	wiringtest.SetLine(t, st, owner, 7, 2)
	failPlace, failMove := true, false
	st.Orders.OnPlacedTx(func(ctx context.Context, tx *sql.Tx, o orders.Order) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE kind = 'order-placed'`).Scan(&n); err != nil || n != 1 {
			t.Errorf("inside the checkout the outbox has %d confirmations (%v)", n, err)
		}
		if failPlace {
			return errors.New("a later write failed")
		}
		return nil
	})
	st.Orders.OnStatusTx(func(ctx context.Context, tx *sql.Tx, ch orders.StatusChange) error {
		if failMove {
			return errors.New("a later write failed")
		}
		return nil
	})
	if _, err := st.Orders.Checkout(t.Context(), wiringtest.Buy(owner, -1)); err == nil {
		t.Fatal("the checkout went through")
	}
	var orderRows int
	if err := st.DB().QueryRow(`SELECT COUNT(*) FROM orders`).Scan(&orderRows); err != nil {
		t.Fatal(err)
	}
	if n := outboxCount(t, st); n != base || orderRows != 0 || wiringtest.StockOf(t, st, 7) != 5 {
		t.Fatalf("after a rolled-back checkout: %d messages (was %d), %d orders, stock %d", n, base, orderRows, wiringtest.StockOf(t, st, 7))
	}

	failPlace = false
	o, err := st.Orders.Checkout(t.Context(), wiringtest.Buy(owner, -1))
	if err != nil {
		t.Fatal(err)
	}
	if n := outboxCount(t, st); n != base+1 {
		t.Fatalf("%d messages after a checkout, want %d", n, base+1)
	}
	failMove = true
	if _, err := st.Orders.MoveOrder(t.Context(), o.ID, 0, orders.OrderCancelled, orders.AdminActor("a")); err == nil {
		t.Fatal("the cancel went through")
	}
	if n := outboxCount(t, st); n != base+1 || wiringtest.StockOf(t, st, 7) != 3 {
		t.Fatalf("after a rolled-back cancel: %d messages, stock %d", n, wiringtest.StockOf(t, st, 7))
	}
	failMove = false
	if _, err := st.Orders.ShipOrder(t.Context(), o.ID, "TRK 1", orders.AdminActor("a")); err != nil {
		t.Fatal(err)
	}
	if n := outboxCount(t, st); n != base+2 {
		t.Fatalf("%d messages after shipping, want %d", n, base+2)
	}
}

// TestAccountMailInTheSameTransaction: a registration that fails (a
// taken name) leaves no verification email.
func TestAccountMailInTheSameTransaction(t *testing.T) {
	st := wiringtest.New(t)
	mailShopper(t, st, "taken")
	if _, err := st.Sessions.Register(t.Context(), "TAKEN", "another password", "other@example.com"); err == nil {
		t.Fatal("a taken name registered")
	}
	if n := outboxCount(t, st); n != 1 {
		t.Fatalf("%d messages, want the first account's only", n)
	}
}

// TestOrderMailOverSMTP: with SMTP_URL set, the worker the wiring starts
// delivers an order's confirmation to a real SMTP server, once, with the
// outbox row's Message-ID.
func TestOrderMailOverSMTP(t *testing.T) {
	srv := newTestSMTP(t)
	cfg, err := mail.ParseSMTPURL("smtp://" + srv.addr)
	if err != nil {
		t.Fatal(err)
	}
	st := wiringtest.New(t, func(o *wiring.Options) {
		o.Mail = mail.Options{SMTP: cfg, Poll: 20 * time.Millisecond, RetryBase: 50 * time.Millisecond}
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, w := range st.Workers() {
		wg.Add(1)
		go func() { defer wg.Done(); w.Run(ctx) }()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	owner := mailShopper(t, st, "smtp_buyer")
	wiringtest.SetLine(t, st, owner, 3, 1)
	o, err := st.Orders.Checkout(t.Context(), wiringtest.Buy(owner, -1))
	if err != nil {
		t.Fatal(err)
	}
	// The worker marks a message sent after the server took it: wait for
	// both, on a busy machine they are apart.
	sent := func() bool {
		entries, _, err := st.Mail.Entries(t.Context(), 10, 0)
		if err != nil || len(entries) != 2 {
			return false
		}
		for _, e := range entries {
			if e.Status != mail.StatusSent {
				return false
			}
		}
		return true
	}
	storetest.Eventually(t, func() bool { return len(srv.received()) == 2 && sent() }, "the verification and the confirmation delivered and marked sent")
	entries, _, err := st.Mail.Entries(t.Context(), 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := srv.received()
	for _, e := range entries {
		if e.Status != mail.StatusSent || !strings.Contains(strings.Join(got, "\n"), "<"+e.MessageID+">") {
			t.Errorf("message %d (%s) %s, not received", e.ID, e.Kind, e.Status)
		}
	}
	if !strings.Contains(strings.Join(got, "\n"), "Order "+itoa(o.ID)+": thank you") {
		t.Fatal("the confirmation did not arrive")
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// testSMTP is a real SMTP server on a loopback port that keeps every
// message it is given.
type testSMTP struct {
	addr string
	mu   sync.Mutex
	msgs []string
}

func newTestSMTP(t *testing.T) *testSMTP {
	t.Helper()
	s := &testSMTP{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &testSMTPSession{s: s}, nil }))
	srv.Domain = "localhost"
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = ln.Close(); _ = srv.Close() })
	return s
}

func (s *testSMTP) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}

type testSMTPSession struct{ s *testSMTP }

func (x *testSMTPSession) Reset()                               {}
func (x *testSMTPSession) Logout() error                        { return nil }
func (x *testSMTPSession) Mail(string, *smtp.MailOptions) error { return nil }
func (x *testSMTPSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (x *testSMTPSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	x.s.mu.Lock()
	x.s.msgs = append(x.s.msgs, string(b))
	x.s.mu.Unlock()
	return nil
}
