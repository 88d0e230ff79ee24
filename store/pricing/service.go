package pricing

import (
	"context"
	"database/sql"
	"errors"

	"storefront/store/platform"
)

var errInvalid = platform.ErrInvalid

// Options are the pricing knobs.
type Options struct {
	// Knobs are the SHIPPING_* rates, which the zones that follow them
	// take at start-up (zero: DefaultRates).
	Knobs Rates
	// PricesIncludeTax: prices are entered with the tax in them
	// (PRICES_INCLUDE_TAX, the default); else tax is added at checkout.
	PricesIncludeTax bool
}

// Service is the pricing: codes, zones, tax rates, quotes.
type Service struct {
	db    *sql.DB
	clock *platform.Clock
	opt   Options
}

// New returns the pricing.
func New(b platform.Base, opt Options) *Service {
	if opt.Knobs == (Rates{}) {
		opt.Knobs = DefaultRates
	}
	return &Service{db: b.DB, clock: b.Clock, opt: opt}
}

// Setup gives the zones that follow the knobs the knobs' rates; run after
// the migrations at every start.
func (s *Service) Setup(ctx context.Context) error { return s.applyKnobs(ctx) }

// PricesIncludeTax says whether prices include tax.
func (s *Service) PricesIncludeTax() bool { return s.opt.PricesIncludeTax }

// Today is the current UTC day, as codes compare it.
func (s *Service) Today() string { return Day(s.clock.Now()) }

// Request is what a quote prices.
type Request struct {
	Lines []int64 // each line's price times its quantity, cents
	// Country is the delivery country; "" prices as the first zone
	// without tax, and a country no zone takes is ErrNoZone.
	Country string
	Method  string // MethodStandard or MethodExpress
	Code    string // as the shopper typed it; "" for none
}

// Quote is a priced order: the breakdown and what priced it.
type Quote struct {
	Breakdown
	Zone Zone
	// Code is the code applied; zero when none (or when it was refused,
	// or gives nothing).
	Code Code
	// Idle is a free_shipping code that gives nothing because the
	// delivery is free anyway: it is not applied, so the order takes no
	// use of it and does not record it (the code stays in the cart, and
	// applies if the delivery stops being free).
	Idle *Code
}

// Quote prices r through q (the database, or the checkout's transaction).
// A code that cannot be used leaves the quote without it and comes back
// as a *CodeError beside the quote; other errors are failures.
func (s *Service) Quote(ctx context.Context, q Querier, r Request) (Quote, *CodeError, error) {
	if q == nil {
		q = s.db
	}
	out, rate, err := s.zoneAndRate(ctx, q, r)
	if err != nil {
		return Quote{}, nil, err
	}
	var refused *CodeError
	var code *Code
	if r.Code != "" {
		c, err := lookup(ctx, q, r.Code)
		if err == nil {
			err = c.check(s.Today(), subtotal(r.Lines))
		}
		switch {
		case errors.As(err, &refused):
		case err != nil:
			return Quote{}, nil, err
		default:
			code = &c
		}
	}
	return s.priced(out, code, r, rate), refused, nil
}

// Reprice prices an order being edited through q (the edit's
// transaction); r.Code is the code the order was placed with ("" for
// none). The order took that code's use when it was placed, so its days
// and caps were checked then and are not again: only its minimum is, and
// a code the new lines no longer reach (or one retired since) comes off
// the order, dropped set, for the caller to give its use back (GiveBack).
func (s *Service) Reprice(ctx context.Context, q Querier, r Request) (out Quote, dropped bool, err error) {
	out, rate, err := s.zoneAndRate(ctx, q, r)
	if err != nil {
		return Quote{}, false, err
	}
	var code *Code
	if r.Code != "" {
		c, err := lookup(ctx, q, r.Code)
		var ce *CodeError
		switch {
		case errors.As(err, &ce):
			dropped = true
		case err != nil:
			return Quote{}, false, err
		case c.Retired || subtotal(r.Lines) < c.MinSubtotal:
			dropped = true
		default:
			code = &c
		}
	}
	return s.priced(out, code, r, rate), dropped, nil
}

// zoneAndRate starts a quote for r with its delivery zone and reads the
// tax rate of its country.
func (s *Service) zoneAndRate(ctx context.Context, q Querier, r Request) (Quote, int64, error) {
	all, err := zones(ctx, q)
	if err != nil {
		return Quote{}, 0, err
	}
	all = inUse(all) // a retired zone prices no delivery
	zone, ok := ZoneFor(all, r.Country)
	switch {
	case r.Country == "" && len(all) > 0:
		zone = all[0]
	case !ok:
		return Quote{}, 0, ErrNoZone
	}
	var rate int64
	if r.Country != "" {
		if rate, err = rateFor(ctx, q, r.Country); err != nil {
			return Quote{}, 0, err
		}
	}
	return Quote{Zone: zone}, rate, nil
}

// priced is out with code applied (nil: none) and the breakdown of r.
func (s *Service) priced(out Quote, code *Code, r Request, rate int64) Quote {
	if code != nil {
		out.Code = *code
	}
	if code != nil && code.Kind == KindFreeShipping && out.Zone.Rates.Cost(r.Method, subtotal(r.Lines)) == 0 {
		out.Idle, out.Code, code = code, Code{}, nil
	}
	out.Breakdown = Compute(r.Lines, code, out.Zone.Rates, r.Method, rate, s.opt.PricesIncludeTax)
	return out
}

// subtotal adds up the lines.
func subtotal(lines []int64) int64 {
	var sub int64
	for _, a := range lines {
		sub += a
	}
	return sub
}
