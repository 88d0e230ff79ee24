package main

import (
	"strings"
	"testing"
	"time"
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
		cfg.VoteScore != 432 || cfg.ArticlesPerPage != 25 || cfg.ItemsPerPage != 24 || cfg.MaxLineQty != 99 {
		t.Errorf("defaults: %+v", cfg)
	}
	if cfg.Rates.Login.N != 5 || cfg.Rates.Login.Per != time.Minute || cfg.Rates.Comment.N != 2 || cfg.Rates.Register.Per != time.Hour {
		t.Errorf("rates: %+v", cfg.Rates)
	}
}

func TestLoadConfigValues(t *testing.T) {
	cfg, err := loadConfig(envOf(map[string]string{
		"SESSION_LIMIT": "2", "PAGE_CACHE_TTL": "2s", "VOTE_WINDOW": "2s", "COMMENT_RATE": "0",
		"TRUSTED_PROXIES": "10.0.0.0/8, 127.0.0.1", "ITEMS_PER_PAGE": "5", "COOKIE_SECURE": "true",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.SessionLimit != 2 || cfg.PageCacheTTL != 2*time.Second || cfg.VoteWindow != 2*time.Second ||
		cfg.Rates.Comment.N != 0 || len(cfg.TrustedProxies) != 2 || cfg.ItemsPerPage != 5 {
		t.Errorf("values: %+v", cfg)
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
		"COOKIE_SECURE":       "maybe",
		"TRUSTED_PROXIES":     "10.0.0.0/99",
		"REDIS_URL":           "http://localhost",
		"DATABASE_URL":        "mysql://x",
		"REQUEST_TIMEOUT":     "fast",
		"REDIS_CLUSTER_ADDRS": "",
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
	cfg := config{DataDir: t.TempDir(), CookieKeys: "bm90IGEga2V5"}
	if _, err := loadCookieKeys(cfg); err == nil || !strings.Contains(err.Error(), "COOKIE_KEYS") {
		t.Errorf("short COOKIE_KEYS: %v", err)
	}
}

func TestGeneratedCookieKeysAreKept(t *testing.T) {
	cfg := config{DataDir: t.TempDir()}
	a, err := loadCookieKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, err := loadCookieKeys(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 1 || string(a[0].Hash) != string(b[0].Hash) || len(a[0].Block) != 32 {
		t.Error("generated keys are not reused across starts")
	}
}
