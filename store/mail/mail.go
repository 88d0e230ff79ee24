package mail

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/workers"
)

// Outbox statuses.
const (
	StatusQueued = "queued" // waiting for its first attempt or a retry
	StatusSent   = "sent"   // accepted by the SMTP server
	StatusFailed = "failed" // given up; LastError says why
	StatusKept   = "kept"   // no SMTP_URL: kept in the outbox, never sent
)

// DefaultFrom is the sender when MAIL_FROM is not set.
const DefaultFrom = "Storefront <shop@localhost>"

// Defaults of the delivery knobs.
const (
	DefaultPoll        = time.Second
	DefaultRetryBase   = 30 * time.Second
	DefaultRetryMax    = time.Hour
	DefaultMaxAttempts = 10
	DefaultSendTimeout = 30 * time.Second
)

// Options are the outbox's knobs; zero values take the defaults.
type Options struct {
	// SMTP is where mail goes (ParseSMTPURL); nil keeps every message in
	// the outbox as kept.
	SMTP *SMTPConfig
	// From is the sender of every message (MAIL_FROM).
	From string
	// Poll is how often the worker looks for due messages.
	Poll time.Duration
	// RetryBase is the wait after a first failed attempt; each further
	// failure doubles it, up to RetryMax.
	RetryBase, RetryMax time.Duration
	// MaxAttempts fails a message after this many attempts.
	MaxAttempts int
	// SendTimeout bounds one SMTP conversation; a claim lasts twice as long.
	SendTimeout time.Duration
}

// Message is one email to write to the outbox.
type Message struct {
	Kind    string // what it is about, e.g. "order-placed", "password-reset"
	To      string // one address, as ParseAddress returns it
	Subject string
	Text    string
	HTML    string
	// Link, when not 0, names the single-use link the message carries
	// (an account_tokens row): Text and HTML hold LinkSecret where its
	// token goes, and the token is made by the LinkMaker when the message
	// is sent, never stored.
	Link int64
}

// LinkSecret stands in the stored bodies for a single-use link's token,
// which only the message as sent carries. It reads the same escaped in a
// URL or in HTML, and is no token the shop accepts.
const LinkSecret = "SECRET-MADE-WHEN-SENT"

// LinkMaker makes the token of link ref as the message is sent, replacing
// any token made for it before. ErrLinkGone: the link was used or expired
// and the message is not sent.
type LinkMaker func(ctx context.Context, ref int64) (token string, err error)

// ErrLinkGone is a LinkMaker's answer for a link that can no longer be
// used.
var ErrLinkGone = errors.New("the link was used or expired before the message was sent")

// database is what the outbox asks of its *sql.DB (tests put a faulty one
// in its place).
type database interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Service is the outbox and its delivery.
type Service struct {
	db     database
	log    *slog.Logger
	clock  *platform.Clock
	host   *workers.Host
	opt    Options
	from   *mail.Address
	domain string // the Message-IDs' right-hand side: MAIL_FROM's domain
	sent   *prometheus.CounterVec
	links  LinkMaker
}

// New returns the outbox. A From that does not parse is a programming
// error: main checks MAIL_FROM with ParseFrom first.
func New(b platform.Base, opt Options, host *workers.Host) *Service {
	if opt.From == "" {
		opt.From = DefaultFrom
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&opt.Poll, DefaultPoll}, {&opt.RetryBase, DefaultRetryBase}, {&opt.RetryMax, DefaultRetryMax}, {&opt.SendTimeout, DefaultSendTimeout}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if opt.MaxAttempts <= 0 {
		opt.MaxAttempts = DefaultMaxAttempts
	}
	from, err := ParseFrom(opt.From)
	if err != nil {
		panic("mail: " + err.Error())
	}
	_, domain, _ := strings.Cut(from.Address, "@")
	s := &Service{db: b.DB, log: b.Log, clock: b.Clock, host: host, opt: opt, from: from, domain: domain,
		sent: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_mail_total",
			Help: "Outbox deliveries by result: sent, retry, failed.",
		}, []string{"result"})}
	for _, r := range []string{"sent", "retry", "failed"} {
		s.sent.WithLabelValues(r)
	}
	return s
}

// MakeLinksWith sets who makes the tokens of the messages' single-use
// links at sending (the wiring: the accounts). Without it a message with
// a link fails rather than go out without one.
func (s *Service) MakeLinksWith(f LinkMaker) { s.links = f }

// Collectors are the outbox's Prometheus series.
func (s *Service) Collectors() []prometheus.Collector { return []prometheus.Collector{s.sent} }

// Sends reports whether messages are delivered (SMTP_URL is set) rather
// than kept.
func (s *Service) Sends() bool { return s.opt.SMTP != nil }

// Enqueue writes m to the outbox inside the caller's transaction: it
// exists exactly when the caller's change commits. Its Message-ID is fixed
// here. It returns the row's id.
func (s *Service) Enqueue(ctx context.Context, tx *sql.Tx, m Message) (int64, error) {
	to, err := ParseAddress(m.To)
	if err != nil {
		return 0, fmt.Errorf("enqueue %s: %w", m.Kind, err)
	}
	status := StatusKept
	if s.Sends() {
		status = StatusQueued
	}
	now := s.clock.Now().UnixMilli()
	msgID := platform.RandomHex(16) + "@" + s.domain
	var id int64
	err = tx.QueryRowContext(ctx, `INSERT INTO outbox (message_id, kind, to_addr, from_addr, subject, text_body, html_body,
		status, next_at, created_at, link_ref) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
		msgID, m.Kind, to, s.from.String(), m.Subject, m.Text, m.HTML, status, now, now, m.Link).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("enqueue %s: %w", m.Kind, err)
	}
	return id, nil
}

// Worker is the delivery loop: one instance across the shop at a time
// (the `mail` lease). Without SMTP there is nothing to deliver and no
// worker.
func (s *Service) Workers() []workers.Worker {
	if !s.Sends() {
		return nil
	}
	return []workers.Worker{s.Worker()}
}

// Worker returns the delivery loop, whether or not SMTP is set (tests run
// several).
func (s *Service) Worker() workers.Worker {
	return s.host.Leased(workers.Leased{Name: keys.LeaseMail, Lease: 2*s.opt.SendTimeout + 10*time.Second, Every: s.opt.Poll,
		Pass: s.deliverPass})
}
