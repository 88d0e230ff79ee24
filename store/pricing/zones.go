package pricing

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"storefront/store/platform"
)

// MaxRate is the largest delivery price or threshold an admin may set
// (100,000.00): anything above is a typing mistake.
const MaxRate = 10_000_000

// Zone is a shipping zone: the countries it covers and their rates.
// A zone without countries covers every country no other zone names.
type Zone struct {
	ID        int64
	Name      string
	Countries []string // ISO 3166-1 alpha-2, upper case
	Rates     Rates
	// FollowsKnobs: the rates are the SHIPPING_* knobs' until an admin
	// saves the zone.
	FollowsKnobs bool
}

// Covers reports whether the zone names country.
func (z Zone) Covers(country string) bool { return slices.Contains(z.Countries, country) }

// ZoneFor picks the zone of country from zones: the one naming it, else
// the one without countries, else the first.
func ZoneFor(zones []Zone, country string) Zone {
	var rest *Zone
	for i, z := range zones {
		if z.Covers(country) {
			return z
		}
		if len(z.Countries) == 0 && rest == nil {
			rest = &zones[i]
		}
	}
	if rest != nil {
		return *rest
	}
	if len(zones) > 0 {
		return zones[0]
	}
	return Zone{Rates: DefaultRates}
}

// countryRE is an ISO 3166-1 alpha-2 code.
var countryRE = regexp.MustCompile(`^[A-Z]{2}$`)

// ParseCountries reads a list such as "gb, de fr" as upper-case codes,
// each once; ok is false when one is not two letters.
func ParseCountries(s string) ([]string, bool) {
	var out []string
	for _, f := range strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' }) {
		if !countryRE.MatchString(f) {
			return nil, false
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out, true
}

// ZoneConflict means a zone names a country another zone has, or is a
// second zone without countries. Nothing changed.
type ZoneConflict struct {
	Country string // "" for a second zone without countries
	Other   string // the other zone's name
}

func (e *ZoneConflict) Error() string {
	return fmt.Sprintf("shipping zone conflicts with %q over %q", e.Other, e.Country)
}

// Zones lists the shipping zones in the order they were made.
func (s *Service) Zones(ctx context.Context) ([]Zone, error) { return zones(ctx, s.db) }

func zones(ctx context.Context, q Querier) ([]Zone, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, name, countries, standard_cents, express_cents, free_over, follows_knobs FROM shipping_zones ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("shipping zones: %w", err)
	}
	defer rows.Close()
	var out []Zone
	for rows.Next() {
		var z Zone
		var countries string
		if err := rows.Scan(&z.ID, &z.Name, &countries, &z.Rates.Standard, &z.Rates.Express, &z.Rates.FreeOver, &z.FollowsKnobs); err != nil {
			return nil, fmt.Errorf("shipping zones: %w", err)
		}
		z.Countries, _ = ParseCountries(countries)
		out = append(out, z)
	}
	return out, rows.Err()
}

// SaveZone creates a zone (ID 0) or changes one; from then on its rates
// are its own, not the knobs'. A bad zone is platform.ErrInvalid, a zone
// overlapping another a *ZoneConflict, an unknown ID platform.ErrNotFound;
// each changes nothing.
func (s *Service) SaveZone(ctx context.Context, z Zone) (Zone, error) {
	r := z.Rates
	name := strings.TrimSpace(z.Name)
	if name == "" || len(name) > 60 || !printable(name) || r.Standard < 0 || r.Express < 0 || r.FreeOver < 0 ||
		r.Standard > MaxRate || r.Express > MaxRate || r.FreeOver > MaxRate {
		return Zone{}, platform.ErrInvalid
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Zone{}, fmt.Errorf("save zone: %w", err)
	}
	defer tx.Rollback()
	all, err := zones(ctx, tx)
	if err != nil {
		return Zone{}, err
	}
	found := z.ID == 0
	for _, o := range all {
		if o.ID == z.ID {
			found = true
			continue
		}
		if len(z.Countries) == 0 && len(o.Countries) == 0 {
			return Zone{}, &ZoneConflict{Other: o.Name}
		}
		for _, c := range z.Countries {
			if o.Covers(c) {
				return Zone{}, &ZoneConflict{Country: c, Other: o.Name}
			}
		}
	}
	if !found {
		return Zone{}, platform.ErrNotFound
	}
	countries := strings.Join(z.Countries, ",")
	if z.ID == 0 {
		err = tx.QueryRowContext(ctx, `INSERT INTO shipping_zones (name, countries, standard_cents, express_cents, free_over, follows_knobs)
			VALUES ($1, $2, $3, $4, $5, FALSE) RETURNING id`, name, countries, r.Standard, r.Express, r.FreeOver).Scan(&z.ID)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE shipping_zones SET name = $1, countries = $2, standard_cents = $3, express_cents = $4,
			free_over = $5, follows_knobs = FALSE WHERE id = $6`, name, countries, r.Standard, r.Express, r.FreeOver, z.ID)
	}
	if err != nil {
		return Zone{}, fmt.Errorf("save zone: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return Zone{}, fmt.Errorf("save zone: %w", err)
	}
	z.Name, z.FollowsKnobs = name, false
	return z, nil
}

// applyKnobs gives the zones that follow the knobs the SHIPPING_* rates.
func (s *Service) applyKnobs(ctx context.Context) error {
	r := s.opt.Knobs
	_, err := s.db.ExecContext(ctx, `UPDATE shipping_zones SET standard_cents = $1, express_cents = $2, free_over = $3 WHERE follows_knobs`,
		r.Standard, r.Express, r.FreeOver)
	if err != nil {
		return fmt.Errorf("shipping zones: %w", err)
	}
	return nil
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}
