package pricing_test

import (
	"errors"
	"testing"

	"storefront/store/platform"
	"storefront/store/pricing"
	"storefront/store/storetest"
)

func newPricing(t *testing.T, knobs pricing.Rates) *pricing.Service {
	t.Helper()
	return startPricing(t, storetest.Base(t), knobs)
}

// startPricing is the pricing over b started with knobs, as at start-up.
func startPricing(t *testing.T, b platform.Base, knobs pricing.Rates) *pricing.Service {
	t.Helper()
	s := pricing.New(b, pricing.Options{Knobs: knobs, PricesIncludeTax: true})
	if err := s.Setup(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}

// Bad codes are refused and nothing is saved; saving a code again (in
// another case) changes its rules and keeps its uses.
func TestSaveCode(t *testing.T) {
	s := newPricing(t, pricing.Rates{})
	ctx := t.Context()
	for _, bad := range []pricing.Code{
		{Code: "X", Kind: "bogof", Value: 1}, {Code: "X", Kind: pricing.KindPercent, Value: 10001},
		{Code: "X", Kind: pricing.KindPercent, Value: 0}, {Code: "X", Kind: pricing.KindAmount, Value: -5},
		{Code: "X", Kind: pricing.KindFreeShipping, Value: 5}, {Code: "A B", Kind: pricing.KindAmount, Value: 5},
		{Code: "X", Kind: pricing.KindAmount, Value: 5, Starts: "2026-02-01", Ends: "2026-01-01"},
		{Code: "X", Kind: pricing.KindAmount, Value: 5, Ends: "31/12/2026"}, {Code: "X", Kind: pricing.KindAmount, Value: 5, MaxUses: -1},
	} {
		if _, err := s.SaveCode(ctx, bad); !errors.Is(err, platform.ErrInvalid) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if codes, err := s.Codes(ctx, true); err != nil || len(codes) != 0 {
		t.Fatalf("refused codes saved: %v %v", codes, err)
	}
	c, err := s.SaveCode(ctx, pricing.Code{Code: "Spring", Kind: pricing.KindPercent, Value: 1500, MaxUses: 3})
	if err != nil {
		t.Fatal(err)
	}
	again, err := s.SaveCode(ctx, pricing.Code{Code: "SPRING", Kind: pricing.KindAmount, Value: 500})
	if err != nil || again.ID != c.ID || again.Kind != pricing.KindAmount || again.Code != "Spring" || again.MaxUses != 0 {
		t.Errorf("saved again: %+v %v", again, err)
	}
	if got, err := s.CheckCode(ctx, " spring ", 600, pricing.Customer{}); err != nil || got.ID != c.ID {
		t.Errorf("check: %+v %v", got, err)
	}
	var ce *pricing.CodeError
	if _, err := s.CheckCode(ctx, "spring", 100, pricing.Customer{}); err != nil {
		t.Errorf("no minimum: %v", err)
	}
	if _, err := s.CheckCode(ctx, "autumn", 100, pricing.Customer{}); !errors.As(err, &ce) || ce.Reason != pricing.ReasonUnknown {
		t.Errorf("unknown: %v", err)
	}
}

// Zones: the knobs reach the zones that follow them until an admin saves
// one; a country belongs to one zone, one zone may have none; bad or
// overlapping zones change nothing; a country of no zone gets the zone
// without countries.
func TestZones(t *testing.T) {
	knobs := pricing.Rates{Standard: 300, Express: 900, FreeOver: 0}
	b := storetest.Base(t)
	s := startPricing(t, b, knobs)
	ctx := t.Context()
	zones, err := s.Zones(ctx, true)
	if err != nil || len(zones) != 3 {
		t.Fatalf("demo zones %+v %v", zones, err)
	}
	us, eu, rest := zones[0], zones[1], zones[2]
	if us.Rates != knobs || eu.Rates != knobs || rest.Rates == knobs || len(rest.Countries) != 0 || !eu.Covers("GB") || !eu.Covers("NO") || eu.Covers("US") {
		t.Errorf("demo zones %+v", zones)
	}
	for _, bad := range []pricing.Zone{
		{ID: eu.ID, Name: "Europe", Countries: []string{"GB", "US"}, Rates: knobs},
		{Name: "Second rest", Rates: knobs},
		{ID: eu.ID, Name: "", Countries: []string{"GB"}, Rates: knobs},
		{ID: eu.ID, Name: "Europe", Countries: []string{"GB"}, Rates: pricing.Rates{Standard: -1}},
		{ID: eu.ID, Name: "Europe", Countries: []string{"GB"}, Rates: pricing.Rates{Express: pricing.MaxRate + 1}},
		{ID: 999, Name: "Nowhere", Countries: []string{"XX"}, Rates: knobs},
	} {
		if _, err := s.SaveZone(ctx, bad); err == nil {
			t.Errorf("saved %+v", bad)
		}
	}
	if after, err := s.Zones(ctx, true); err != nil || len(after) != 3 || after[1].Rates != knobs || len(after[1].Countries) != len(eu.Countries) {
		t.Fatalf("refused zones changed something: %+v %v", after, err)
	}
	eu.Rates = pricing.Rates{Standard: 700, Express: 1900, FreeOver: 8000}
	if _, err := s.SaveZone(ctx, eu); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SaveZone(ctx, pricing.Zone{Name: "Oceania", Countries: []string{"AU", "NZ"}, Rates: pricing.Rates{Standard: 999}}); err != nil {
		t.Fatal(err)
	}
	// A restart with other knobs moves only the zone still following them.
	s2 := startPricing(t, b, pricing.Rates{Standard: 100, Express: 200})
	zones, err = s2.Zones(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	zoneOf := func(country string) string {
		z, ok := pricing.ZoneFor(zones, country)
		if !ok {
			return "none"
		}
		return z.Name
	}
	if zones[0].Rates.Standard != 100 || zones[1].Rates.Standard != 700 || zoneOf("NZ") != "Oceania" ||
		zoneOf("AR") != "Rest of world" || zoneOf("DE") != "Europe" || zoneOf("NG") != "Rest of world" {
		t.Errorf("zones after a restart: %+v", zones)
	}
}

// A country no zone names falls to "Rest of world"; once that zone names
// countries of its own there is nowhere to fall, and a quote for such a
// country is ErrNoZone, not some other zone's price.
func TestCountryWithoutZone(t *testing.T) {
	s := newPricing(t, pricing.Rates{})
	ctx := t.Context()
	quote := func(country string) (pricing.Quote, error) {
		t.Helper()
		q, _, err := s.Quote(ctx, nil, pricing.Request{Lines: []int64{2000}, Country: country, Method: pricing.MethodStandard})
		return q, err
	}
	if q, err := quote("NG"); err != nil || q.Zone.Name != "Rest of world" || q.Shipping != 1499 {
		t.Fatalf("Nigeria: zone %q shipping %d, %v; want Rest of world at 14.99", q.Zone.Name, q.Shipping, err)
	}
	zones, err := s.Zones(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	rest := zones[len(zones)-1]
	rest.Countries = []string{"AR", "BR"}
	if _, err := s.SaveZone(ctx, rest); err != nil {
		t.Fatal(err)
	}
	if _, err := quote("NG"); !errors.Is(err, pricing.ErrNoZone) {
		t.Errorf("Nigeria without a Rest of world zone: %v, want ErrNoZone", err)
	}
	if q, err := quote("BR"); err != nil || q.Zone.Name != "Rest of world" {
		t.Errorf("Brazil: zone %q, %v", q.Zone.Name, err)
	}
	if q, err := quote(""); err != nil || q.Zone.Name != "United States" {
		t.Errorf("no country yet: zone %q, %v; want the first zone's", q.Zone.Name, err)
	}
}

// Tax rates: demo rates, bad rates refused, a country without one pays none.
func TestTaxRates(t *testing.T) {
	s := newPricing(t, pricing.Rates{})
	ctx := t.Context()
	rates, err := s.TaxRates(ctx)
	if err != nil || len(rates) != 8 {
		t.Fatalf("demo rates %+v %v", rates, err)
	}
	for _, bad := range []pricing.TaxRate{{Country: "GB", RateBP: 10001}, {Country: "GB", RateBP: -1}, {Country: "gb", RateBP: 5}, {Country: "GBR", RateBP: 5}} {
		if err := s.SetTaxRate(ctx, bad); !errors.Is(err, platform.ErrInvalid) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	if err := s.SetTaxRate(ctx, pricing.TaxRate{Country: "CH", RateBP: 810}); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveTaxRate(ctx, "GB"); err != nil {
		t.Fatal(err)
	}
	q, _, err := s.Quote(ctx, nil, pricing.Request{Lines: []int64{10810}, Country: "CH", Method: pricing.MethodStandard})
	if err != nil || q.Tax != 810 || q.Shipping != 0 { // 10810 holds 810 at 8.1%; delivery is free over 50.00
		t.Errorf("CH quote %+v %v", q.Breakdown, err)
	}
	if q, _, err := s.Quote(ctx, nil, pricing.Request{Lines: []int64{1200}, Country: "GB", Method: pricing.MethodStandard}); err != nil || q.Tax != 0 {
		t.Errorf("GB without a rate: %+v %v", q.Breakdown, err)
	}
}
