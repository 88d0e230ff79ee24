package addressbook

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"storefront/store/orders"
	"storefront/store/platform"
)

// MaxAddresses is how many addresses one account may keep: enough for
// home, work and family, and a bound on what one account can store.
const MaxAddresses = 20

// ErrFull is returned when the account already keeps MaxAddresses.
var ErrFull = errors.New("address book full")

// Entry is one saved address.
type Entry struct {
	ID      int64
	Address orders.Address
	Default bool
}

// Service is the address book.
type Service struct {
	db    *sql.DB
	clock *platform.Clock
}

// New returns the address book.
func New(b platform.Base) *Service { return &Service{db: b.DB, clock: b.Clock} }

const columns = `id, name, line1, line2, city, region, postcode, country, phone, is_default`

func scan(row interface{ Scan(...any) error }) (Entry, error) {
	var e Entry
	a := &e.Address
	err := row.Scan(&e.ID, &a.Name, &a.Line1, &a.Line2, &a.City, &a.Region, &a.Postcode, &a.Country, &a.Phone, &e.Default)
	return e, err
}

// List returns the account's addresses, the default first, then oldest
// first.
func (s *Service) List(ctx context.Context, userID int64) ([]Entry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+columns+` FROM addresses
		WHERE user_id = $1 ORDER BY is_default DESC, id`, userID)
	if err != nil {
		return nil, fmt.Errorf("addresses: %w", err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		e, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("addresses: %w", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("addresses: %w", err)
	}
	return out, nil
}

// Get returns one of the account's addresses; platform.ErrNotFound when
// the account has no such address.
func (s *Service) Get(ctx context.Context, userID, id int64) (Entry, error) {
	e, err := scan(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM addresses WHERE id = $1 AND user_id = $2`, id, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, platform.ErrNotFound
	}
	if err != nil {
		return Entry{}, fmt.Errorf("address: %w", err)
	}
	return e, nil
}

// Default returns the account's default address, if it has one.
func (s *Service) Default(ctx context.Context, userID int64) (Entry, bool, error) {
	e, err := scan(s.db.QueryRowContext(ctx, `SELECT `+columns+` FROM addresses
		WHERE user_id = $1 AND is_default`, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, fmt.Errorf("default address: %w", err)
	}
	return e, true, nil
}

// Add saves a new address (validated by the caller). The account's first
// address, or one added with makeDefault, becomes the default. ErrFull
// once the account keeps MaxAddresses; two adds at once cannot pass the
// limit together (the account's row is locked for the count).
func (s *Service) Add(ctx context.Context, userID int64, a orders.Address, makeDefault bool) (Entry, error) {
	var e Entry
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		if err := lockAccount(ctx, tx, userID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM addresses WHERE user_id = $1`, userID).Scan(&n); err != nil {
			return err
		}
		if n >= MaxAddresses {
			return ErrFull
		}
		makeDefault = makeDefault || n == 0
		if makeDefault {
			if _, err := tx.ExecContext(ctx, `UPDATE addresses SET is_default = FALSE WHERE user_id = $1 AND is_default`, userID); err != nil {
				return err
			}
		}
		var id int64
		err := tx.QueryRowContext(ctx, `INSERT INTO addresses (user_id, name, line1, line2, city, region, postcode, country, phone, is_default, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id`,
			userID, a.Name, a.Line1, a.Line2, a.City, a.Region, a.Postcode, a.Country, a.Phone, makeDefault, s.clock.Now().Unix()).Scan(&id)
		e = Entry{ID: id, Address: a, Default: makeDefault}
		return err
	})
	if err != nil && !errors.Is(err, ErrFull) {
		err = fmt.Errorf("add address: %w", err)
	}
	return e, err
}

// Update replaces one of the account's addresses; platform.ErrNotFound
// when the account has no such address.
func (s *Service) Update(ctx context.Context, userID, id int64, a orders.Address) error {
	res, err := s.db.ExecContext(ctx, `UPDATE addresses SET name = $1, line1 = $2, line2 = $3, city = $4, region = $5, postcode = $6,
		country = $7, phone = $8 WHERE id = $9 AND user_id = $10`, a.Name, a.Line1, a.Line2, a.City, a.Region, a.Postcode, a.Country, a.Phone, id, userID)
	return changedOne(res, err, "update address")
}

// SetDefault makes one of the account's addresses the default.
func (s *Service) SetDefault(ctx context.Context, userID, id int64) error {
	return platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		if err := lockAccount(ctx, tx, userID); err != nil {
			return err
		}
		if _, err := s.getTx(ctx, tx, userID, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE addresses SET is_default = (id = $1) WHERE user_id = $2`, id, userID)
		return err
	})
}

// Delete removes one of the account's addresses. When it was the
// default, the oldest address left becomes the default.
func (s *Service) Delete(ctx context.Context, userID, id int64) error {
	return platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		if err := lockAccount(ctx, tx, userID); err != nil {
			return err
		}
		e, err := s.getTx(ctx, tx, userID, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM addresses WHERE id = $1 AND user_id = $2`, id, userID); err != nil {
			return err
		}
		if !e.Default {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE addresses SET is_default = TRUE
			WHERE id = (SELECT MIN(id) FROM addresses WHERE user_id = $1)`, userID)
		return err
	})
}

func (s *Service) getTx(ctx context.Context, tx *sql.Tx, userID, id int64) (Entry, error) {
	e, err := scan(tx.QueryRowContext(ctx, `SELECT `+columns+` FROM addresses WHERE id = $1 AND user_id = $2`, id, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return Entry{}, platform.ErrNotFound
	}
	return e, err
}

// lockAccount serialises one account's address book changes: on
// PostgreSQL a row lock on the account; SQLite runs one writer at a time.
func lockAccount(ctx context.Context, tx *sql.Tx, userID int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE users SET id = id WHERE id = $1`, userID)
	return err
}

func changedOne(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return platform.ErrNotFound
	}
	return nil
}
