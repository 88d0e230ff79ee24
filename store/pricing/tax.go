package pricing

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"storefront/store/audit"
	"storefront/store/platform"
)

// TaxRate is one country's tax rate.
type TaxRate struct {
	Country string // ISO 3166-1 alpha-2
	RateBP  int64  // hundredths of a percent: 2000 = 20%
}

// TaxRates lists the countries' rates by country code.
func (s *Service) TaxRates(ctx context.Context) ([]TaxRate, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT country, rate_bp FROM tax_rates ORDER BY country`)
	if err != nil {
		return nil, fmt.Errorf("tax rates: %w", err)
	}
	defer rows.Close()
	var out []TaxRate
	for rows.Next() {
		var r TaxRate
		if err := rows.Scan(&r.Country, &r.RateBP); err != nil {
			return nil, fmt.Errorf("tax rates: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// rateFor is country's rate; 0 for a country without one.
func rateFor(ctx context.Context, q Querier, country string) (int64, error) {
	var bp int64
	err := q.QueryRowContext(ctx, `SELECT rate_bp FROM tax_rates WHERE country = $1`, country).Scan(&bp)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("tax rate: %w", err)
	}
	return bp, nil
}

// SetTaxRate sets a country's rate (0..10000 basis points); a bad country
// or rate is platform.ErrInvalid and changes nothing.
func (s *Service) SetTaxRate(ctx context.Context, r TaxRate) error {
	if !countryRE.MatchString(r.Country) || r.RateBP < 0 || r.RateBP > 10000 {
		return errInvalid
	}
	return platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		before, err := taxFields(ctx, tx, r.Country)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO tax_rates (country, rate_bp) VALUES ($1, $2)
		ON CONFLICT (country) DO UPDATE SET rate_bp = excluded.rate_bp`, r.Country, r.RateBP); err != nil {
			return fmt.Errorf("set tax rate: %w", err)
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "tax.set", Target: "country " + r.Country, Before: before,
			After: audit.Fields{"rate_bp": r.RateBP}})
	})
}

// taxFields is a country's rate as the audit log records it (nil for none).
func taxFields(ctx context.Context, tx *sql.Tx, country string) (audit.Fields, error) {
	var bp int64
	err := tx.QueryRowContext(ctx, `SELECT rate_bp FROM tax_rates WHERE country = $1`, country).Scan(&bp)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tax rate: %w", err)
	}
	return audit.Fields{"rate_bp": bp}, nil
}

// RemoveTaxRate removes a country's rate: it pays no tax.
func (s *Service) RemoveTaxRate(ctx context.Context, country string) error {
	return platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		before, err := taxFields(ctx, tx, country)
		if err != nil || before == nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tax_rates WHERE country = $1`, country); err != nil {
			return fmt.Errorf("remove tax rate: %w", err)
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "tax.remove", Target: "country " + country, Before: before})
	})
}
