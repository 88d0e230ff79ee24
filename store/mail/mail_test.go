package mail_test

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"storefront/store/mail"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/store/workers"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// newOutbox builds the outbox over base b, delivering to url ("" keeps
// messages), retrying quickly.
func newOutbox(t *testing.T, b platform.Base, url string) *mail.Service {
	t.Helper()
	opt := mail.Options{Poll: 10 * time.Millisecond, RetryBase: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond,
		MaxAttempts: 1000, SendTimeout: 5 * time.Second}
	if url != "" {
		c, err := mail.ParseSMTPURL(url)
		if err != nil {
			t.Fatal(err)
		}
		opt.SMTP = c
	}
	return mail.New(b, opt, workers.NewHost(b))
}

// runWorker runs the outbox's worker until the test ends.
func runWorker(t *testing.T, s *mail.Service) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Worker().Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// enqueue writes n messages in one committed transaction and returns
// their ids.
func enqueue(t *testing.T, db *sql.DB, s *mail.Service, n int, tag string) []int64 {
	t.Helper()
	ctx := t.Context()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var ids []int64
	for i := range n {
		id, err := s.Enqueue(ctx, tx, mail.Message{Kind: "test", To: fmt.Sprintf("%s%d@example.com", tag, i),
			Subject: fmt.Sprintf("%s %d", tag, i), Text: "plain text", HTML: "<p>html</p>"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return ids
}

// statuses counts the outbox rows by status, failing the test on a read
// error.
func statuses(t *testing.T, db *sql.DB) map[string]int {
	t.Helper()
	rows, err := db.QueryContext(context.Background(), `SELECT status, COUNT(*) FROM outbox GROUP BY status`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var st string
		var n int
		if err := rows.Scan(&st, &n); err != nil {
			t.Fatal(err)
		}
		out[st] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// onceEach checks that the server took each of the outbox's messages
// exactly once, and nothing else.
func onceEach(t *testing.T, s *mail.Service, srv *smtpServer, want int) {
	t.Helper()
	entries, total, err := s.Entries(t.Context(), 1000, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := srv.countByID()
	if total != want || len(got) != want || len(srv.messages()) != want {
		t.Fatalf("outbox %d rows, server took %d messages with %d Message-IDs; want %d each", total, len(srv.messages()), len(got), want)
	}
	for _, e := range entries {
		if n := got["<"+e.MessageID+">"]; n != 1 || e.Status != mail.StatusSent {
			t.Errorf("message %d (%s): %s, received %d times", e.ID, e.MessageID, e.Status, n)
		}
	}
}

// TestDeliverOverSMTP: queued messages reach a real SMTP server with
// their Message-ID, sender, recipient, subject and both parts.
func TestDeliverOverSMTP(t *testing.T) {
	srv := startSMTP(t)
	b := storetest.Base(t)
	s := newOutbox(t, b, srv.url())
	ids := enqueue(t, b.DB, s, 3, "ada")
	runWorker(t, s)
	storetest.Eventually(t, func() bool { return statuses(t, b.DB)[mail.StatusSent] == 3 }, "three messages sent")
	onceEach(t, s, srv, 3)
	e, err := s.Entry(t.Context(), ids[1])
	if err != nil {
		t.Fatal(err)
	}
	var m received
	for _, r := range srv.messages() {
		if r.MessageID == "<"+e.MessageID+">" {
			m = r
		}
	}
	if m.To != "ada1@example.com" || m.From != "shop@localhost" || m.Subject != "ada 1" || e.SentAt.IsZero() || e.Attempts != 1 {
		t.Fatalf("received %+v for entry %+v", m, e)
	}
	for _, part := range []string{"text/plain", "plain text", "text/html", "<p>html</p>", "From: \"Storefront\" <shop@localhost>"} {
		if !strings.Contains(m.Raw, part) {
			t.Errorf("message lacks %q:\n%s", part, m.Raw)
		}
	}
}

// TestOutageInTheMiddle: the SMTP server goes away while messages are
// queued and comes back: every message arrives, none twice.
func TestOutageInTheMiddle(t *testing.T) {
	srv := startSMTP(t)
	b := storetest.Base(t)
	s := newOutbox(t, b, srv.url())
	runWorker(t, s)
	enqueue(t, b.DB, s, 5, "before")
	storetest.Eventually(t, func() bool { return statuses(t, b.DB)[mail.StatusSent] == 5 }, "first five sent")

	srv.stop()
	enqueue(t, b.DB, s, 5, "during")
	// The worker tries, fails and backs off while the server is down.
	storetest.Eventually(t, func() bool {
		var n int
		err := b.DB.QueryRow(`SELECT COUNT(*) FROM outbox WHERE status = 'queued' AND attempts >= 2 AND last_error <> ''`).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		return n >= 1
	}, "a queued message retried during the outage")
	if st := statuses(t, b.DB); st[mail.StatusSent] != 5 || st[mail.StatusQueued] != 5 || st[mail.StatusFailed] != 0 {
		t.Fatalf("during the outage: %v", st)
	}
	srv.start()
	enqueue(t, b.DB, s, 5, "after")
	storetest.Eventually(t, func() bool { return statuses(t, b.DB)[mail.StatusSent] == 15 }, "all fifteen sent after the outage")
	onceEach(t, s, srv, 15)
}

// TestTwoWorkersAtOnce: two instances' workers (each with its lease), and
// eight passes racing on the claims alone, deliver each message once.
func TestTwoWorkersAtOnce(t *testing.T) {
	srv := startSMTP(t)
	b := storetest.Base(t)
	b2 := b
	b2.Instance = "other-instance"
	s1, s2 := newOutbox(t, b, srv.url()), newOutbox(t, b2, srv.url())
	enqueue(t, b.DB, s1, 30, "lease")
	runWorker(t, s1)
	runWorker(t, s2)
	storetest.Eventually(t, func() bool { return statuses(t, b.DB)[mail.StatusSent] == 30 }, "thirty sent by two workers")
	onceEach(t, s1, srv, 30)

	enqueue(t, b.DB, s1, 40, "race")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := s1
			if i%2 == 1 {
				s = s2
			}
			for statuses(t, b.DB)[mail.StatusQueued] > 0 {
				s.PassWithoutLease(context.Background())
			}
		}()
	}
	wg.Wait()
	onceEach(t, s1, srv, 70)
}

// TestUnsureDeliveryNotRepeated: a server that hangs up instead of
// answering the end of the data may have taken the message. The outbox
// marks it failed and never sends it again; so does a claim whose worker
// stopped between sending and marking.
func TestUnsureDeliveryNotRepeated(t *testing.T) {
	srv := startSMTP(t)
	b := storetest.Base(t)
	s := newOutbox(t, b, srv.url())
	srv.set(nil, true)
	ids := enqueue(t, b.DB, s, 1, "unsure")
	s.PassWithoutLease(t.Context())
	e, err := s.Entry(t.Context(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != mail.StatusFailed || e.Attempts != 1 || e.LastError == "" {
		t.Fatalf("after a hang-up: %+v", e)
	}
	srv.set(nil, false)

	// A crash after the claim: the claim expires and the row fails.
	ids = enqueue(t, b.DB, s, 1, "crash")
	if _, err := b.DB.Exec(`UPDATE outbox SET claimed_until = $1, attempts = 1 WHERE id = $2`, time.Now().Add(-time.Second).UnixMilli(), ids[0]); err != nil {
		t.Fatal(err)
	}
	runWorker(t, s)
	storetest.Eventually(t, func() bool {
		e, err := s.Entry(t.Context(), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		return e.Status == mail.StatusFailed && strings.Contains(e.LastError, "interrupted")
	}, "the interrupted delivery failed")
	if n := len(srv.messages()); n != 1 {
		t.Fatalf("server took %d messages, want only the first (hung-up) one", n)
	}
}

// TestRefusals: a 4xx is retried until the server accepts; a 5xx fails
// at once; a message out of attempts fails.
func TestRefusals(t *testing.T) {
	srv := startSMTP(t)
	b := storetest.Base(t)
	s := newOutbox(t, b, srv.url())
	srv.set(&smtp.SMTPError{Code: 451, Message: "try later"}, false)
	ids := enqueue(t, b.DB, s, 1, "later")
	s.PassWithoutLease(t.Context())
	e, err := s.Entry(t.Context(), ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if e.Status != mail.StatusQueued || e.Attempts != 1 || !strings.Contains(e.LastError, "451") || !e.NextAt.After(e.CreatedAt) {
		t.Fatalf("after a 451: %+v", e)
	}
	srv.set(&smtp.SMTPError{Code: 550, Message: "no such user"}, false)
	storetest.Eventually(t, func() bool {
		s.PassWithoutLease(t.Context())
		e, err = s.Entry(t.Context(), ids[0])
		return err == nil && e.Status == mail.StatusFailed
	}, "a 550 fails the message")
	if !strings.Contains(e.LastError, "550") || e.Attempts != 2 || len(srv.messages()) != 0 {
		t.Fatalf("after a 550: %+v, %d received", e, len(srv.messages()))
	}
}

// TestBackoffDoubles: the wait doubles per attempt up to the most.
func TestBackoffDoubles(t *testing.T) {
	srv := startSMTP(t)
	srv.stop()
	b := storetest.Base(t)
	s := newOutbox(t, b, srv.url())
	ids := enqueue(t, b.DB, s, 1, "backoff")
	var waits []time.Duration
	for deadline := time.Now().Add(15 * time.Second); len(waits) < 5; {
		if time.Now().After(deadline) {
			t.Fatalf("only %d attempts", len(waits))
		}
		s.PassWithoutLease(t.Context())
		e, err := s.Entry(t.Context(), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if e.Attempts > len(waits) {
			var last int64
			if err := b.DB.QueryRow(`SELECT next_at FROM outbox WHERE id = $1`, ids[0]).Scan(&last); err != nil {
				t.Fatal(err)
			}
			waits = append(waits, time.Until(time.UnixMilli(last)))
		}
	}
	// Each wait was set just after its attempt: it is at most the
	// backoff, and more than the one before (20, 40, 80, 160, 200 ms).
	for i, want := range []time.Duration{20, 40, 80, 160, 200} {
		if waits[i] > want*time.Millisecond {
			t.Errorf("wait %d: %v, want at most %v", i+1, waits[i], want*time.Millisecond)
		}
	}
	if !(waits[3] > waits[0]) {
		t.Errorf("waits do not grow: %v", waits)
	}
}

// TestKeptWithoutSMTP: without SMTP_URL messages are kept, and there is
// no worker.
func TestKeptWithoutSMTP(t *testing.T) {
	b := storetest.Base(t)
	s := newOutbox(t, b, "")
	enqueue(t, b.DB, s, 2, "kept")
	if st := statuses(t, b.DB); st[mail.StatusKept] != 2 || len(st) != 1 {
		t.Fatalf("statuses %v", st)
	}
	if len(s.Workers()) != 0 || s.Sends() {
		t.Fatal("a worker without SMTP")
	}
}

// TestEnqueueRolledBack: a message written in a transaction that rolls
// back does not exist; a bad address is refused and writes nothing.
func TestEnqueueRolledBack(t *testing.T) {
	b := storetest.Base(t)
	s := newOutbox(t, b, "")
	tx, err := b.DB.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(t.Context(), tx, mail.Message{Kind: "t", To: "a@example.com", Subject: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Enqueue(t.Context(), tx, mail.Message{Kind: "t", To: "Eve <e@example.com>", Subject: "s"}); err == nil {
		t.Fatal("a display name was accepted as a recipient")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if st := statuses(t, b.DB); len(st) != 0 {
		t.Fatalf("rolled back, yet the outbox has %v", st)
	}
}

func TestParseAddress(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"ada@example.com", true}, {" Ada.L+shop@mail.example.co.uk ", true}, {"a_b-c%d@ex-ample.org", true},
		{"", false}, {"ada", false}, {"ada@", false}, {"@example.com", false}, {"ada@localhost", false},
		{"ada@127.0.0.1", false}, {"ada@[127.0.0.1]", false}, {"Ada <ada@example.com>", false},
		{"\"ada lovelace\"@example.com", false}, {"ada@exämple.com", false}, {"adä@example.com", false},
		{"ada..l@example.com", false}, {".ada@example.com", false}, {"ada@-example.com", false},
		{"ada@example.com\r\nBcc: eve@example.com", false}, {"ada@example.com,eve@example.com", false},
		{"ada(comment)@example.com", false}, {"ada@example.c", false}, {"a@b@example.com", false},
		{strings.Repeat("a", 65) + "@example.com", false}, {"a@" + strings.Repeat("b", 250) + ".com", false},
	} {
		got, err := mail.ParseAddress(c.in)
		if (err == nil) != c.ok || (c.ok && got != strings.TrimSpace(c.in)) {
			t.Errorf("ParseAddress(%q) = %q, %v; want ok=%v", c.in, got, err, c.ok)
		}
	}
}

func TestParseSMTPURL(t *testing.T) {
	c, err := mail.ParseSMTPURL("smtps://user:p%40ss@mail.example.com")
	if err != nil || c.Host != "mail.example.com" || c.Port != 465 || !c.SSL || c.Username != "user" || c.Password != "p@ss" {
		t.Fatalf("%+v %v", c, err)
	}
	c, err = mail.ParseSMTPURL("smtp://mail.example.com:2525")
	if err != nil || c.Port != 2525 || c.SSL || c.Username != "" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range []string{"http://mail.example.com", "smtp://", "smtp://host:0", "smtp://host:x", "mail.example.com"} {
		if _, err := mail.ParseSMTPURL(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := mail.ParseFrom("not an address"); err == nil {
		t.Error("a bad MAIL_FROM accepted")
	}
}
