package main

import (
	"strings"
	"testing"
	"time"

	"storefront/store/orders"
)

func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

func TestLoadConfigDefaults(t *testing.T) {
	cfg, err := loadConfig(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Addr != ":8080" || cfg.DataDir != "./data" || cfg.SessionLimit != 10_000_000 || cfg.ViewedPerSession != 25 ||
		cfg.PageCacheTTL != 300*time.Second || cfg.PageCacheTop != 10_000 || cfg.ViewedKeep != 20_000 ||
		cfg.RescaleInterval != 5*time.Minute || cfg.GroupCacheTTL != time.Minute || cfg.VoteWindow != 168*time.Hour ||
		cfg.VoteScore != 432 || cfg.ArticlesPerPage != 25 || cfg.ItemsPerPage != 24 || cfg.MaxLineQty != 99 ||
		cfg.AccountCartTTL != 2160*time.Hour || cfg.StartTimeout != time.Minute || cfg.Shipping != (orders.ShippingRates{Standard: 499, Express: 1499, FreeOver: 5000}) ||
		!cfg.PricesIncludeTax || cfg.storeOptions("single").PricesExcludeTax {
		t.Errorf("defaults: %+v", cfg)
	}
	for got, want := range map[string]string{
		cfg.Rates.Login.String(): "5/1m0s", cfg.Rates.LoginAddr.String(): "20/1m0s,100/1h0m0s",
		cfg.Rates.Comment.String(): "2/1m0s,5/5m0s", cfg.Rates.Register.String(): "10/1h0m0s",
		cfg.Rates.Follow.String(): "30/1m0s", cfg.Rates.Like.String(): "30/1m0s",
	} {
		if got != want {
			t.Errorf("rate %s, want %s", got, want)
		}
	}
}

func TestLoadConfigValues(t *testing.T) {
	cfg, err := loadConfig(envOf(map[string]string{
		"SESSION_LIMIT": "2", "PAGE_CACHE_TTL": "2s", "VOTE_WINDOW": "2s", "COMMENT_RATE": "0", "LIKE_RATE": "3/1s, 10/1h",
		"TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1", "ITEMS_PER_PAGE": "5", "COOKIE_SECURE": "true",
		"ACCOUNT_CART_TTL": "48h", "SHIPPING_STANDARD": "3", "SHIPPING_EXPRESS": "9.5", "FREE_SHIPPING_OVER": "0",
		"PRICES_INCLUDE_TAX": "false",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SessionLimit != 2 || cfg.PageCacheTTL != 2*time.Second || cfg.VoteWindow != 2*time.Second ||
		cfg.Rates.Comment != nil || len(cfg.TrustedProxies) != 2 || cfg.ItemsPerPage != 5 {
		t.Errorf("values: %+v", cfg)
	}
	if cfg.PricesIncludeTax || !cfg.storeOptions("single").PricesExcludeTax {
		t.Error("PRICES_INCLUDE_TAX=false is not in force")
	}
	if cfg.AccountCartTTL != 48*time.Hour || cfg.Shipping != (orders.ShippingRates{Standard: 300, Express: 950}) {
		t.Errorf("cart and shipping knobs: %v %+v", cfg.AccountCartTTL, cfg.Shipping)
	}
	if opt := cfg.storeOptions("single"); opt.AccountCartTTL != 48*time.Hour || opt.Shipping == nil || *opt.Shipping != cfg.Shipping {
		t.Errorf("store options: %v %+v", opt.AccountCartTTL, opt.Shipping)
	}
	if got := cfg.Rates.Like.String(); got != "3/1s,10/1h0m0s" {
		t.Errorf("LIKE_RATE: %s", got)
	}
}

func TestLoadConfigRejectsBadValues(t *testing.T) {
	for name, value := range map[string]string{
		"SESSION_LIMIT":       "lots",
		"VIEWED_PER_SESSION":  "0",
		"PAGE_CACHE_TTL":      "5",
		"PAGE_CACHE_TOP":      "-1",
		"VIEWED_KEEP":         "1.5",
		"RESCALE_INTERVAL":    "-5m",
		"GROUP_CACHE_TTL":     "soon",
		"VOTE_WINDOW":         "0s",
		"VOTE_SCORE":          "x",
		"ARTICLES_PER_PAGE":   "0",
		"ITEMS_PER_PAGE":      "100000",
		"MAX_LINE_QTY":        "",
		"LOGIN_RATE":          "5",
		"REGISTER_RATE":       "ten/1h",
		"POST_RATE":           "5/forever",
		"VOTE_RATE":           "-1/1m",
		"COMMENT_RATE":        "2/0s",
		"FOLLOW_RATE":         "2/1m,",
		"LIKE_RATE":           "2/1m;5/5m",
		"LOGIN_ADDR_RATE":     "2/1m,x/5m",
		"COOKIE_SECURE":       "maybe",
		"TRUSTED_PROXIES":     "10.0.0.0/99",
		"REDIS_URL":           "http://localhost",
		"DATABASE_URL":        "mysql://x",
		"REQUEST_TIMEOUT":     "fast",
		"START_TIMEOUT":       "0s",
		"REDIS_CLUSTER_ADDRS": "",
		"ACCOUNT_CART_TTL":    "90d",
		"SHIPPING_STANDARD":   "4,99",
		"SHIPPING_EXPRESS":    "-1",
		"FREE_SHIPPING_OVER":  "fifty",
		"PRICES_INCLUDE_TAX":  "sometimes",
	} {
		if value == "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			_, err := loadConfig(envOf(map[string]string{name: value}))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: error %v, want one naming %s", name, value, err, name)
			}
		})
	}
	_, err := loadConfig(envOf(map[string]string{"REDIS_URL": "redis://x", "REDIS_CLUSTER_ADDRS": "a:1"}))
	if err == nil {
		t.Error("REDIS_URL with REDIS_CLUSTER_ADDRS accepted")
	}
}

// TestLoadConfigCardPayments: PAYMENT_HOLD defaults to 30m; the STRIPE_*
// knobs reach the store; a secret key without the webhook secret, a bad
// API base or a bad hold stop start-up naming the variable.
func TestLoadConfigCardPayments(t *testing.T) {
	cfg, err := loadConfig(envOf(nil))
	if err != nil || cfg.PaymentHold != 30*time.Minute || cfg.Stripe.SecretKey != "" {
		t.Fatalf("defaults: hold %v, stripe %+v, %v", cfg.PaymentHold, cfg.Stripe, err)
	}
	cfg, err = loadConfig(envOf(map[string]string{"PAYMENT_HOLD": "45m", "STRIPE_SECRET_KEY": "sk_test_x",
		"STRIPE_WEBHOOK_SECRET": "whsec_x", "STRIPE_API_BASE": "http://127.0.0.1:12111"}))
	if err != nil {
		t.Fatal(err)
	}
	opt := cfg.storeOptions("single")
	if opt.PaymentHold != 45*time.Minute || opt.Stripe.SecretKey != "sk_test_x" || opt.Stripe.WebhookSecret != "whsec_x" ||
		opt.Stripe.APIBase != "http://127.0.0.1:12111" {
		t.Errorf("store options: %v %+v", opt.PaymentHold, opt.Stripe)
	}
	for name, env := range map[string]map[string]string{
		"STRIPE_WEBHOOK_SECRET": {"STRIPE_SECRET_KEY": "sk_test_x"},
		"STRIPE_API_BASE":       {"STRIPE_API_BASE": "ftp://stripe"},
		"PAYMENT_HOLD":          {"PAYMENT_HOLD": "half an hour"},
	} {
		if _, err := loadConfig(envOf(env)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%v: error %v, want one naming %s", env, err, name)
		}
	}
}

// TestLoadConfigReturnDays: RETURN_DAYS defaults to 30 days, reaches the
// store as the return window, and a bad value stops start-up naming it.
func TestLoadConfigReturnDays(t *testing.T) {
	cfg, err := loadConfig(envOf(nil))
	if err != nil || cfg.storeOptions("single").ReturnWindow != 30*24*time.Hour {
		t.Fatalf("default: %v %v", cfg.ReturnDays, err)
	}
	cfg, err = loadConfig(envOf(map[string]string{"RETURN_DAYS": "14"}))
	if err != nil || cfg.storeOptions("single").ReturnWindow != 14*24*time.Hour {
		t.Fatalf("14: %v %v", cfg.ReturnDays, err)
	}
	for _, v := range []string{"0", "-3", "two weeks"} {
		if _, err := loadConfig(envOf(map[string]string{"RETURN_DAYS": v})); err == nil || !strings.Contains(err.Error(), "RETURN_DAYS") {
			t.Errorf("RETURN_DAYS=%q: error %v", v, err)
		}
	}
}

// SEED_DEMO: the demo data by default, an empty shop with false, and a
// value that is not a boolean stops start-up naming it.
func TestSeedDemoKnob(t *testing.T) {
	cfg, err := loadConfig(envOf(nil))
	if err != nil || !cfg.SeedDemo || cfg.storeOptions("single").NoDemo {
		t.Fatalf("default: %v %v", cfg.SeedDemo, err)
	}
	cfg, err = loadConfig(envOf(map[string]string{"SEED_DEMO": "false"}))
	if err != nil || cfg.SeedDemo || !cfg.storeOptions("single").NoDemo {
		t.Fatalf("SEED_DEMO=false: %v %v", cfg.SeedDemo, err)
	}
	if _, err := loadConfig(envOf(map[string]string{"SEED_DEMO": "maybe"})); err == nil || !strings.Contains(err.Error(), "SEED_DEMO") {
		t.Errorf("SEED_DEMO=maybe: %v", err)
	}
}
