package pricing

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"storefront/store/audit"
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
	// Retired: the admin retired the zone; it prices no delivery and
	// names no country a zone in use may not have.
	Retired bool
}

// Covers reports whether the zone names country.
func (z Zone) Covers(country string) bool { return slices.Contains(z.Countries, country) }

// ErrNoZone means no shipping zone covers the delivery country and there
// is no zone without countries ("Rest of world") to fall to: the shop
// does not deliver there.
var ErrNoZone = errors.New("no shipping zone covers the country")

// ZoneFor picks the zone of country from zones: the one naming it, else
// the one without countries; ok is false when neither exists. A shop
// without any zone delivers everywhere at DefaultRates.
func ZoneFor(zones []Zone, country string) (z Zone, ok bool) {
	var rest *Zone
	for i, z := range zones {
		if z.Covers(country) {
			return z, true
		}
		if len(z.Countries) == 0 && rest == nil {
			rest = &zones[i]
		}
	}
	if rest != nil {
		return *rest, true
	}
	if len(zones) == 0 {
		return Zone{Rates: DefaultRates}, true
	}
	return Zone{}, false
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

// Zones lists the shipping zones in use in the order they were made, and
// the retired ones too when withRetired.
func (s *Service) Zones(ctx context.Context, withRetired bool) ([]Zone, error) {
	all, err := zones(ctx, s.db)
	if withRetired || err != nil {
		return all, err
	}
	return inUse(all), nil
}

// inUse are the zones of all not retired.
func inUse(all []Zone) []Zone {
	var out []Zone
	for _, z := range all {
		if !z.Retired {
			out = append(out, z)
		}
	}
	return out
}

func zones(ctx context.Context, q Querier) ([]Zone, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, name, countries, standard_cents, express_cents, free_over, follows_knobs, archived_at FROM shipping_zones ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("shipping zones: %w", err)
	}
	defer rows.Close()
	var out []Zone
	for rows.Next() {
		var z Zone
		var countries string
		var archived int64
		if err := rows.Scan(&z.ID, &z.Name, &countries, &z.Rates.Standard, &z.Rates.Express, &z.Rates.FreeOver, &z.FollowsKnobs, &archived); err != nil {
			return nil, fmt.Errorf("shipping zones: %w", err)
		}
		z.Retired = archived != 0
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
	var before audit.Fields
	for _, o := range all {
		if o.ID == z.ID {
			found, z.Retired = true, o.Retired
			before = zoneFields(o)
		}
	}
	if !z.Retired {
		if err := conflicts(z, all); err != nil {
			return Zone{}, err
		}
	}
	if !found {
		return Zone{}, platform.ErrNotFound
	}
	countries := strings.Join(z.Countries, ",")
	if z.ID == 0 {
		err = tx.QueryRowContext(ctx, `INSERT INTO shipping_zones (name, countries, standard_cents, express_cents, free_over, follows_knobs, saved_by_admin)
			VALUES ($1, $2, $3, $4, $5, FALSE, TRUE) RETURNING id`, name, countries, r.Standard, r.Express, r.FreeOver).Scan(&z.ID)
	} else {
		_, err = tx.ExecContext(ctx, `UPDATE shipping_zones SET name = $1, countries = $2, standard_cents = $3, express_cents = $4,
			free_over = $5, follows_knobs = FALSE, saved_by_admin = TRUE WHERE id = $6`, name, countries, r.Standard, r.Express, r.FreeOver, z.ID)
	}
	if err != nil {
		return Zone{}, fmt.Errorf("save zone: %w", err)
	}
	z.Name, z.FollowsKnobs = name, false
	if err := audit.Record(ctx, tx, audit.Entry{Kind: "zone.save", Target: "zone " + strconv.FormatInt(z.ID, 10),
		Before: before, After: zoneFields(z)}); err != nil {
		return Zone{}, err
	}
	if err := tx.Commit(); err != nil {
		return Zone{}, fmt.Errorf("save zone: %w", err)
	}
	return z, nil
}

// zoneFields are a zone as the audit log records it.
func zoneFields(z Zone) audit.Fields {
	return audit.Fields{"name": z.Name, "countries": strings.Join(z.Countries, ","), "standard_cents": z.Rates.Standard,
		"express_cents": z.Rates.Express, "free_over": z.Rates.FreeOver}
}

// conflicts is the *ZoneConflict of z with the other zones in use, if
// any: a country both name, or a second zone without countries.
func conflicts(z Zone, all []Zone) error {
	for _, o := range all {
		if o.ID == z.ID || o.Retired {
			continue
		}
		if len(z.Countries) == 0 && len(o.Countries) == 0 {
			return &ZoneConflict{Other: o.Name}
		}
		for _, c := range z.Countries {
			if o.Covers(c) {
				return &ZoneConflict{Country: c, Other: o.Name}
			}
		}
	}
	return nil
}

// SetZoneRetired retires a zone or brings it back: a retired zone prices
// no delivery, and its countries go to the zone without countries (or
// may be given to another zone); orders priced by it keep their delivery.
// Bringing it back is a *ZoneConflict when a zone in use took one of its
// countries since; ErrNotFound for no such zone. Nothing changes on an
// error.
func (s *Service) SetZoneRetired(ctx context.Context, id int64, retired bool) (Zone, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Zone{}, fmt.Errorf("retire zone: %w", err)
	}
	defer tx.Rollback()
	// Take the table's lock first (a no-op update), so that two admins
	// saving and restoring zones take turns and never overlap countries.
	if _, err := tx.ExecContext(ctx, `UPDATE shipping_zones SET archived_at = archived_at WHERE id = $1`, id); err != nil {
		return Zone{}, fmt.Errorf("retire zone: %w", err)
	}
	all, err := zones(ctx, tx)
	if err != nil {
		return Zone{}, err
	}
	i := slices.IndexFunc(all, func(z Zone) bool { return z.ID == id })
	if i < 0 {
		return Zone{}, platform.ErrNotFound
	}
	z := all[i]
	if !retired {
		if err := conflicts(z, all); err != nil {
			return Zone{}, err
		}
	}
	var at int64
	if retired {
		at = max(s.clock.Now().Unix(), 1)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE shipping_zones SET archived_at = $1 WHERE id = $2`, at, id); err != nil {
		return Zone{}, fmt.Errorf("retire zone: %w", err)
	}
	if err := audit.Record(ctx, tx, audit.Entry{Kind: "zone.retire", Target: "zone " + strconv.FormatInt(id, 10),
		Before: audit.Fields{"retired": z.Retired}, After: audit.Fields{"retired": retired}}); err != nil {
		return Zone{}, err
	}
	if err := tx.Commit(); err != nil {
		return Zone{}, fmt.Errorf("retire zone: %w", err)
	}
	z.Retired = retired
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
