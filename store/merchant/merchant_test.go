package merchant_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"storefront/store/merchant"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

// Settings saved on one instance reach another through the announcement,
// which then reads them from memory; until the first save the defaults
// (the knobs') hold.
func TestSettingsReachEveryInstance(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	other := merchant.New(platform.NewBase(st.Redis(), st.DB(), storetest.Logger(t)), merchant.Settings{Address: "1 Dock Road"})
	t.Cleanup(other.Close)
	if err := other.Load(ctx); err != nil {
		t.Fatal(err)
	}
	if got := other.Current(); got.ShopName != "Storefront" || got.Currency != "USD" || got.Address != "1 Dock Road" {
		t.Fatalf("defaults %+v", got)
	}
	saved, err := st.Merchant.SaveSettings(ctx, merchant.Settings{ShopName: "  Harbour Goods ", Currency: "eur",
		ContactEmail: "hello@harbour.example", Address: " 1 Quay Street \r\n\r\n Portsmouth PO1 2AB "})
	if err != nil {
		t.Fatal(err)
	}
	want := merchant.Settings{ShopName: "Harbour Goods", Currency: "EUR", ContactEmail: "hello@harbour.example", Address: "1 Quay Street\nPortsmouth PO1 2AB"}
	if saved != want || st.Merchant.Current() != want {
		t.Fatalf("saved %+v, here %+v, want %+v", saved, st.Merchant.Current(), want)
	}
	deadline := time.Now().Add(10 * time.Second)
	for other.Current() != want {
		if time.Now().After(deadline) {
			t.Fatalf("the other instance still has %+v", other.Current())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// What the admin typed is refused whole, with the field and why, and
// nothing changes.
func TestSettingsRefuseBadInput(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	good := merchant.Settings{ShopName: "Harbour Goods", Currency: "GBP", ContactEmail: "a@b.example", Address: "1 Quay"}
	for _, c := range []struct {
		name, field, says string
		edit              func(*merchant.Settings)
	}{
		{"empty name", "shop_name", "required", func(s *merchant.Settings) { s.ShopName = " " }},
		{"10 KB name", "shop_name", "at most 80", func(s *merchant.Settings) { s.ShopName = strings.Repeat("x", 10<<10) }},
		{"markup", "shop_name", "markup", func(s *merchant.Settings) { s.ShopName = "<script>alert(1)</script>" }},
		{"two lines", "shop_name", "one line", func(s *merchant.Settings) { s.ShopName = "a\nb" }},
		{"bad currency", "currency", "ISO 4217", func(s *merchant.Settings) { s.Currency = "XYZ" }},
		{"no currency", "currency", "ISO 4217", func(s *merchant.Settings) { s.Currency = "" }},
		{"bad email", "contact_email", "plain address", func(s *merchant.Settings) { s.ContactEmail = "not an email" }},
		{"named email", "contact_email", "plain address", func(s *merchant.Settings) { s.ContactEmail = "Shop <a@b.example>" }},
		{"10 KB address", "address", "at most 500", func(s *merchant.Settings) { s.Address = strings.Repeat("y", 10<<10) }},
		{"address markup", "address", "markup", func(s *merchant.Settings) { s.Address = "1 Quay\n<b>Portsmouth</b>" }},
		{"many lines", "address", "at most 8 lines", func(s *merchant.Settings) { s.Address = strings.Repeat("a\n", 9) }},
	} {
		s := good
		c.edit(&s)
		_, err := st.Merchant.SaveSettings(ctx, s)
		var fe *merchant.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field || !strings.Contains(fe.Msg, c.says) || !errors.Is(err, merchant.ErrBadInput) {
			t.Errorf("%s: %v, want %s saying %q", c.name, err, c.field, c.says)
		}
		if got := st.Merchant.Current(); got.ShopName != "Storefront" || got.Currency != "USD" {
			t.Errorf("%s changed the settings: %+v", c.name, got)
		}
	}
	var n int
	if err := st.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM shop_settings`).Scan(&n); err != nil || n != 0 {
		t.Errorf("rows %d %v", n, err)
	}
}

// Currencies: every code in circulation, with its minor unit.
func TestCurrencyOf(t *testing.T) {
	for code, want := range map[string]merchant.Currency{
		"usd": {Code: "USD", Digits: 2, Symbol: "$"}, "EUR": {Code: "EUR", Digits: 2, Symbol: "€"},
		"JPY": {Code: "JPY", Digits: 0, Symbol: "¥"}, "KWD": {Code: "KWD", Digits: 3, Symbol: "KWD "},
		"NGN": {Code: "NGN", Digits: 2, Symbol: "₦"},
	} {
		if got, ok := merchant.CurrencyOf(code); !ok || got != want {
			t.Errorf("%s: %+v %v, want %+v", code, got, ok, want)
		}
	}
	for _, bad := range []string{"", "XYZ", "US", "USDD", "XAU"} {
		if _, ok := merchant.CurrencyOf(bad); ok {
			t.Errorf("%q accepted", bad)
		}
	}
	if n := len(merchant.CurrencyCodes()); n < 150 {
		t.Errorf("only %d currencies", n)
	}
}
