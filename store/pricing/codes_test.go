package pricing_test

import (
	"errors"
	"testing"
	"time"

	"storefront/store/pricing"
	"storefront/store/storetest"
)

// TestCodeDays: a code is valid on its first day and on its last day (UTC
// days, both included), not the day before it starts, and expired the day
// after it ends, from the first second to the last of each day.
func TestCodeDays(t *testing.T) {
	b := storetest.Base(t)
	s := startPricing(t, b, pricing.Rates{})
	ctx := t.Context()
	if _, err := s.SaveCode(ctx, pricing.Code{Code: "MAYWEEK", Kind: pricing.KindPercent, Value: 1000, Starts: "2026-05-04", Ends: "2026-05-10"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at     string
		reason string // "" for valid
	}{
		{"2026-05-03T23:59:59Z", pricing.ReasonNotStarted},
		{"2026-05-04T00:00:00Z", ""},
		{"2026-05-04T12:00:00Z", ""},
		{"2026-05-10T00:00:00Z", ""},
		{"2026-05-10T23:59:59Z", ""},
		{"2026-05-11T00:00:00Z", pricing.ReasonExpired},
		{"2026-05-11T13:00:00+02:00", pricing.ReasonExpired}, // 11:00 UTC
		{"2026-05-11T01:00:00+02:00", ""},                    // still the 10th in UTC
	} {
		at, err := time.Parse(time.RFC3339, tc.at)
		if err != nil {
			t.Fatal(err)
		}
		b.Clock.Set(func() time.Time { return at })
		_, err = s.CheckCode(ctx, "mayweek", 1000, pricing.Customer{})
		var ce *pricing.CodeError
		switch {
		case tc.reason == "" && err != nil:
			t.Errorf("%s: %v, want valid", tc.at, err)
		case tc.reason != "" && (!errors.As(err, &ce) || ce.Reason != tc.reason):
			t.Errorf("%s: %v, want %s", tc.at, err, tc.reason)
		}
		q, refused, err := s.Quote(ctx, nil, pricing.Request{Lines: []int64{1000}, Country: "GB", Method: pricing.MethodStandard, Code: "MAYWEEK"})
		if err != nil || (tc.reason == "") != (refused == nil && q.Discount == 100) {
			t.Errorf("%s: quote %+v, refused %v, %v", tc.at, q.Breakdown, refused, err)
		}
	}
}

// TestFreeShippingCodeIdleWhenDeliveryIsFree: a free-delivery code on
// goods that ship free anyway (at or over the threshold) gives nothing,
// so the quote does not apply it (no code, no discount) and says it is
// idle; below the threshold it applies.
func TestFreeShippingCodeIdleWhenDeliveryIsFree(t *testing.T) {
	s := newPricing(t, pricing.Rates{Standard: 499, Express: 1499, FreeOver: 5000})
	ctx := t.Context()
	if _, err := s.SaveCode(ctx, pricing.Code{Code: "SHIPFREE", Kind: pricing.KindFreeShipping}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		goods  int64
		method string
		idle   bool
	}{{5000, pricing.MethodStandard, true}, {9000, pricing.MethodStandard, true}, {4999, pricing.MethodStandard, false}, {9000, pricing.MethodExpress, false}} {
		q, refused, err := s.Quote(ctx, nil, pricing.Request{Lines: []int64{tc.goods}, Country: "GB", Method: tc.method, Code: "shipfree"})
		if err != nil || refused != nil {
			t.Fatalf("%d %s: %v %v", tc.goods, tc.method, refused, err)
		}
		if tc.idle && (q.Idle == nil || q.Code.ID != 0 || q.Discount != 0 || q.Shipping != 0) {
			t.Errorf("%d %s: quote %+v code %+v idle %v, want the code idle", tc.goods, tc.method, q.Breakdown, q.Code, q.Idle)
		}
		if !tc.idle && (q.Idle != nil || q.Code.ID == 0 || q.Discount != q.Shipping || q.Shipping == 0) {
			t.Errorf("%d %s: quote %+v code %+v, want the code applied", tc.goods, tc.method, q.Breakdown, q.Code)
		}
	}
}
