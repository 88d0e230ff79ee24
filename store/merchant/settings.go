package merchant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"storefront/store/audit"
	"storefront/store/mail"
	"storefront/store/platform"
)

// Settings are the shop's own: its name (in every title, header, footer
// and email), its currency, the address buyers write to, and its postal
// address (on return instructions and order emails, line by line).
type Settings struct {
	ShopName     string
	Currency     string // ISO 4217 code, upper case
	ContactEmail string // "" for none
	Address      string // lines separated by "\n", "" for none
}

// Limits of what the admin may type.
const (
	MaxShopName = 80
	MaxAddress  = 500
	MaxAddrRows = 8
)

// DefaultShopName is the shop's name until the admin gives it one.
const DefaultShopName = "Storefront"

// AddressLines is the postal address line by line.
func (s Settings) AddressLines() []string {
	if s.Address == "" {
		return nil
	}
	return strings.Split(s.Address, "\n")
}

// AddressOneLine is the postal address on one line, its lines joined by
// commas, for the text of a message.
func (s Settings) AddressOneLine() string { return strings.Join(s.AddressLines(), ", ") }

// FieldError is why a form's field was refused: Field names the form
// field, Msg says why in words for the admin.
type FieldError struct{ Field, Msg string }

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// ErrBadInput wraps every FieldError, for errors.Is.
var ErrBadInput = errors.New("bad input")

func (e *FieldError) Unwrap() error { return ErrBadInput }

// Normalize checks the settings an admin sent and returns them tidied
// (trimmed, the currency in upper case, the address's lines trimmed and
// its blank lines dropped), or a *FieldError saying what is wrong.
func (s Settings) Normalize() (Settings, error) {
	var err error
	if s.ShopName, err = oneLine("shop_name", "The shop's name", s.ShopName, MaxShopName, true); err != nil {
		return Settings{}, err
	}
	c, ok := CurrencyOf(s.Currency)
	if !ok {
		return Settings{}, &FieldError{"currency", fmt.Sprintf("%q is not an ISO 4217 currency code such as USD, EUR, GBP or JPY.", clip(s.Currency, 12))}
	}
	s.Currency = c.Code
	s.ContactEmail = strings.TrimSpace(s.ContactEmail)
	if s.ContactEmail != "" {
		if s.ContactEmail, err = mail.ParseAddress(s.ContactEmail); err != nil {
			return Settings{}, &FieldError{"contact_email", "The contact email must be one plain address such as shop@example.com."}
		}
	}
	if s.Address, err = lines("address", "The address", s.Address, MaxAddress, MaxAddrRows); err != nil {
		return Settings{}, err
	}
	return s, nil
}

// oneLine checks a one-line text field: at most max characters, no line
// breaks or control characters, no markup; required says it may not be
// empty.
func oneLine(field, what, v string, max int, required bool) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "" && required:
		return "", &FieldError{field, what + " is required."}
	case utf8.RuneCountInString(v) > max:
		return "", &FieldError{field, fmt.Sprintf("%s is at most %d characters (this is %d).", what, max, utf8.RuneCountInString(v))}
	case strings.ContainsFunc(v, unicode.IsControl):
		return "", &FieldError{field, what + " must be one line of text."}
	case strings.ContainsAny(v, "<>"):
		return "", &FieldError{field, what + " is plain text: markup (< and >) is not accepted."}
	}
	return v, nil
}

// lines checks a text of several lines: at most max characters and
// maxRows lines, no markup; lines are trimmed and blank ones dropped.
func lines(field, what, v string, max, maxRows int) (string, error) {
	if n := utf8.RuneCountInString(v); n > max {
		return "", &FieldError{field, fmt.Sprintf("%s is at most %d characters (this is %d).", what, max, n)}
	}
	var out []string
	for l := range strings.SplitSeq(strings.ReplaceAll(v, "\r\n", "\n"), "\n") {
		l, err := oneLine(field, what, l, max, false)
		if err != nil {
			return "", err
		}
		if l != "" {
			out = append(out, l)
		}
	}
	if len(out) > maxRows {
		return "", &FieldError{field, fmt.Sprintf("%s is at most %d lines.", what, maxRows)}
	}
	return strings.Join(out, "\n"), nil
}

// clip shortens what a message quotes back.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// readSettings reads the saved settings; ok is false before the first save.
func readSettings(ctx context.Context, db *sql.DB) (Settings, bool, error) {
	var s Settings
	err := db.QueryRowContext(ctx, `SELECT shop_name, currency, contact_email, address FROM shop_settings WHERE id = 1`).
		Scan(&s.ShopName, &s.Currency, &s.ContactEmail, &s.Address)
	if errors.Is(err, sql.ErrNoRows) {
		return Settings{}, false, nil
	}
	if err != nil {
		return Settings{}, false, fmt.Errorf("shop settings: %w", err)
	}
	return s, true, nil
}

// writeSettings saves the settings (one row, replaced).
func writeSettings(ctx context.Context, db *sql.DB, s Settings, now int64) error {
	return platform.InTx(ctx, db, func(tx *sql.Tx) error {
		var before audit.Fields
		var was Settings
		err := tx.QueryRowContext(ctx, `SELECT shop_name, currency, contact_email, address FROM shop_settings WHERE id = 1`).
			Scan(&was.ShopName, &was.Currency, &was.ContactEmail, &was.Address)
		switch {
		case err == nil:
			before = settingsFields(was)
		case !errors.Is(err, sql.ErrNoRows):
			return fmt.Errorf("save shop settings: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO shop_settings (id, shop_name, currency, contact_email, address, updated_at)
		VALUES (1, $1, $2, $3, $4, $5)
		ON CONFLICT (id) DO UPDATE SET shop_name = excluded.shop_name, currency = excluded.currency,
		contact_email = excluded.contact_email, address = excluded.address, updated_at = excluded.updated_at`,
			s.ShopName, s.Currency, s.ContactEmail, s.Address, now); err != nil {
			return fmt.Errorf("save shop settings: %w", err)
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "settings.save", Target: "shop settings", Before: before, After: settingsFields(s)})
	})
}

// settingsFields are the settings as the audit log records them.
func settingsFields(s Settings) audit.Fields {
	return audit.Fields{"shop_name": s.ShopName, "currency": s.Currency, "contact_email": s.ContactEmail, "address": s.Address}
}
