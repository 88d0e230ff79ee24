package main

import (
	"strings"
	"testing"

	"storefront/store/mail"
)

// TestLoadMailConfig: the email knobs' defaults, values and refusals.
func TestLoadMailConfig(t *testing.T) {
	cfg, err := loadConfig(envOf(map[string]string{"ADDR": ":9090"}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mail.SMTP != nil || cfg.Mail.From != mail.DefaultFrom || cfg.ShopURL != "http://localhost:9090" ||
		cfg.Rates.Forgot.String() != "5/15m0s,20/24h0m0s" || cfg.Rates.Email.String() != "5/1h0m0s" {
		t.Errorf("defaults: %+v %q %s %s", cfg.Mail, cfg.ShopURL, cfg.Rates.Forgot, cfg.Rates.Email)
	}
	cfg, err = loadConfig(envOf(map[string]string{"SMTP_URL": "smtps://u:p@mail.example.com", "MAIL_FROM": "Shop <shop@example.com>",
		"SHOP_URL": "https://shop.example.com/"}))
	if err != nil {
		t.Fatal(err)
	}
	opt := cfg.storeOptions("single")
	if opt.Mail.SMTP == nil || opt.Mail.SMTP.Host != "mail.example.com" || !opt.Mail.SMTP.SSL || opt.Mail.From != "Shop <shop@example.com>" ||
		opt.ShopURL != "https://shop.example.com" {
		t.Errorf("values: %+v %q", opt.Mail, opt.ShopURL)
	}
	if opt.ShopAddress != "" || opt.TrackingURL != "" {
		t.Errorf("SHOP_ADDRESS and TRACKING_URL unset: %q %q", opt.ShopAddress, opt.TrackingURL)
	}
	cfg, err = loadConfig(envOf(map[string]string{"SHOP_ADDRESS": " Returns, 1 Dock Road, London E1 1AA ", "TRACKING_URL": "https://track.example.com/p?n={tracking}"}))
	if err != nil {
		t.Fatal(err)
	}
	if opt := cfg.storeOptions("single"); opt.ShopAddress != "Returns, 1 Dock Road, London E1 1AA" || opt.TrackingURL != "https://track.example.com/p?n={tracking}" {
		t.Errorf("letters: %q %q", opt.ShopAddress, opt.TrackingURL)
	}
	for name, value := range map[string]string{
		"SMTP_URL": "mail.example.com:25", "MAIL_FROM": "shop", "SHOP_URL": "shop.example.com", "FORGOT_RATE": "x", "EMAIL_RATE": "1/0s",
		"SHOP_ADDRESS": "1 Dock Road\nLondon", "TRACKING_URL": "https://track.example.com/p",
	} {
		_, err := loadConfig(envOf(map[string]string{name: value}))
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: error %v, want one naming %s", name, value, err, name)
		}
	}
}
