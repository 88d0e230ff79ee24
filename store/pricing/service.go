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
	Lines   []int64 // each line's price times its quantity, cents
	Country string  // the delivery country; "" prices as the first zone without tax
	Method  string  // MethodStandard or MethodExpress
	Code    string  // as the shopper typed it; "" for none
}

// Quote is a priced order: the breakdown and what priced it.
type Quote struct {
	Breakdown
	Zone Zone
	// Code is the code applied; zero when none (or when it was refused).
	Code Code
}

// Quote prices r through q (the database, or the checkout's transaction).
// A code that cannot be used leaves the quote without it and comes back
// as a *CodeError beside the quote; other errors are failures.
func (s *Service) Quote(ctx context.Context, q Querier, r Request) (Quote, *CodeError, error) {
	if q == nil {
		q = s.db
	}
	all, err := zones(ctx, q)
	if err != nil {
		return Quote{}, nil, err
	}
	out := Quote{Zone: ZoneFor(all, r.Country)}
	if r.Country == "" && len(all) > 0 {
		out.Zone = all[0]
	}
	var rate int64
	if r.Country != "" {
		if rate, err = rateFor(ctx, q, r.Country); err != nil {
			return Quote{}, nil, err
		}
	}
	var refused *CodeError
	var code *Code
	if r.Code != "" {
		var sub int64
		for _, a := range r.Lines {
			sub += a
		}
		c, err := lookup(ctx, q, r.Code)
		if err == nil {
			err = c.check(s.Today(), sub)
		}
		switch {
		case errors.As(err, &refused):
		case err != nil:
			return Quote{}, nil, err
		default:
			code, out.Code = &c, c
		}
	}
	out.Breakdown = Compute(r.Lines, code, out.Zone.Rates, r.Method, rate, s.opt.PricesIncludeTax)
	return out, refused, nil
}
