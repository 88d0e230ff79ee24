package mail

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// SMTPConfig is where the outbox delivers: SMTP_URL read by ParseSMTPURL.
type SMTPConfig struct {
	Host     string
	Port     int
	SSL      bool // smtps://: TLS from the first byte; smtp:// uses STARTTLS when offered
	Username string
	Password string
}

// ParseSMTPURL reads SMTP_URL: smtp://[user:pass@]host[:port] (port 587
// by default, STARTTLS when the server offers it) or smtps://... (port
// 465, TLS from the start).
func ParseSMTPURL(s string) (*SMTPConfig, error) {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Hostname() == "" {
		return nil, errors.New("must be smtp://user:pass@host:port or smtps://user:pass@host:port")
	}
	c := &SMTPConfig{Host: u.Hostname(), SSL: u.Scheme == "smtps", Port: 587}
	if c.SSL {
		c.Port = 465
	}
	if p := u.Port(); p != "" {
		if c.Port, err = strconv.Atoi(p); err != nil || c.Port < 1 || c.Port > 65535 {
			return nil, errors.New("has a bad port")
		}
	}
	if u.User != nil {
		c.Username = u.User.Username()
		c.Password, _ = u.User.Password()
	}
	return c, nil
}

// outcome is what one delivery attempt settled.
type outcome int

const (
	delivered outcome = iota // the server accepted the message
	retry                    // certainly not delivered; may be tried again
	refused                  // the server refused it for good (5xx)
	unsure                   // may have been delivered: not tried again
)

// send speaks SMTP once for m, with its fixed Message-ID and date, and
// says what came of it.
func (s *Service) send(ctx context.Context, m Entry) (outcome, error) {
	msg := gomail.NewMsg()
	msg.FromMailAddress(s.from)
	if err := msg.To(m.To); err != nil {
		return refused, fmt.Errorf("recipient: %w", err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(m.MessageID)
	msg.SetDateWithValue(m.CreatedAt)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)

	c := s.opt.SMTP
	opts := []gomail.Option{gomail.WithPort(c.Port), gomail.WithTimeout(s.opt.SendTimeout), gomail.WithTLSPortPolicy(gomail.TLSOpportunistic)}
	if c.SSL {
		opts = append(opts, gomail.WithSSLPort(false))
	}
	if c.Username != "" {
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover), gomail.WithUsername(c.Username), gomail.WithPassword(c.Password))
	}
	client, err := gomail.NewClient(c.Host, opts...)
	if err != nil {
		return refused, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.opt.SendTimeout)
	defer cancel()
	conn, err := client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		return retry, fmt.Errorf("connect: %w", err) // nothing was sent
	}
	err = client.SendWithSMTPClient(conn, msg)
	_ = client.CloseWithSMTPClient(conn) // the QUIT's answer changes nothing
	return classify(msg.IsDelivered(), err)
}

// classify turns go-mail's answer into an outcome. Accepted is accepted
// whatever came after (the RSET that follows may fail). A 5xx is final.
// A failure with no reply code at the end of the data is the one case
// where the server may have taken the message: unsure. Everything else
// happened before the server could accept it: retry.
func classify(accepted bool, err error) (outcome, error) {
	if accepted {
		return delivered, nil
	}
	if err == nil {
		return unsure, errors.New("the server neither accepted nor refused the message")
	}
	var se *gomail.SendError
	if errors.As(err, &se) {
		switch {
		case se.ErrorCode() >= 500:
			return refused, err
		case se.Reason == gomail.ErrSMTPDataClose && se.ErrorCode() == 0:
			return unsure, err
		}
	}
	return retry, err
}

// backoff is the wait before attempt n+1 after n failed ones: RetryBase
// doubled per attempt, at most RetryMax.
func (s *Service) backoff(attempts int) time.Duration {
	d := s.opt.RetryBase
	for i := 1; i < attempts && d < s.opt.RetryMax; i++ {
		d *= 2
	}
	return min(d, s.opt.RetryMax)
}
