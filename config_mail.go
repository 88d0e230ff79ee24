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

// letters reads what the shop's messages say besides links: SHOP_ADDRESS,
// where returns are sent (unset: the approval asks the shopper to reply
// for it), and TRACKING_URL, the carrier's page of a parcel with
// {tracking} where the number goes (unset: the number alone).
func (p *envParser) letters() (address, tracking string) {
	address = strings.TrimSpace(p.str("SHOP_ADDRESS", ""))
	if len(address) > 300 || strings.ContainsAny(address, "\r\n<>") {
		p.fail("SHOP_ADDRESS", "must be one line of at most 300 characters, such as \"Storefront Returns, 1 Dock Road, London E1 1AA, United Kingdom\"")
	}
	tracking = p.str("TRACKING_URL", "")
	if tracking != "" {
		u, err := url.Parse(strings.ReplaceAll(tracking, "{tracking}", "X"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || !strings.Contains(tracking, "{tracking}") {
			p.fail("TRACKING_URL", "must be the carrier's address with {tracking} for the number, such as https://track.example.com/?n={tracking}")
		}
	}
	return address, tracking
}
