package main

import (
	"net"
	"net/url"
	"strings"

	"storefront/store/mail"
)

// mail reads the email knobs: SMTP_URL (unset: messages are kept in the
// outbox, not sent), MAIL_FROM, and SHOP_URL, where emailed links point
// (default: http://localhost and ADDR's port).
func (p *envParser) mail(addr string) (mail.Options, string) {
	opt := mail.Options{From: p.str("MAIL_FROM", mail.DefaultFrom)}
	if _, err := mail.ParseFrom(opt.From); err != nil {
		p.fail("MAIL_FROM", err.Error())
	}
	if u := p.str("SMTP_URL", ""); u != "" {
		c, err := mail.ParseSMTPURL(u)
		if err != nil {
			p.fail("SMTP_URL", err.Error())
		}
		opt.SMTP = c
	}
	shop := p.str("SHOP_URL", "")
	if shop == "" {
		_, port, err := net.SplitHostPort(addr)
		if err != nil || port == "" {
			port = "8080"
		}
		shop = "http://localhost:" + port
	}
	if u, err := url.Parse(shop); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" {
		p.fail("SHOP_URL", "must be the shop's address such as https://shop.example.com")
	}
	return opt, strings.TrimSuffix(shop, "/")
}
