package web

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"storefront/store/orders"
	"storefront/views"
)

// postcodeRE covers the world's postcodes: letters, digits, spaces, hyphens.
var postcodeRE = regexp.MustCompile(`^[A-Z0-9][A-Z0-9 -]{1,10}[A-Z0-9]$`)

// AddressFields are the fields of a delivery address form.
var AddressFields = []string{"name", "line1", "line2", "city", "postcode", "country"}

// ReadAddress reads a delivery address from posted fields (each trimmed,
// the postcode upper-cased), as the checkout and the address book take it.
func ReadAddress(v map[string]string) orders.Address {
	return orders.Address{Name: v["name"], Line1: v["line1"], Line2: v["line2"], City: v["city"],
		Postcode: strings.ToUpper(v["postcode"]), Country: v["country"]}
}

// AddressProblems returns a message per refused field of a delivery
// address (by form field name); none when it can be shipped to.
func AddressProblems(a orders.Address) map[string]string {
	errs := map[string]string{}
	text := func(field, value, label string, required bool, maxLen int) {
		switch {
		case !Printable(value):
			errs[field] = label + " contains characters we cannot print on a parcel."
		case value == "" && required:
			errs[field] = "Enter " + strings.ToLower(label) + "."
		case utf8.RuneCountInString(value) > maxLen:
			errs[field] = label + " is too long: use at most " + Itoa(int64(maxLen)) + " characters."
		}
	}
	text("name", a.Name, "Your full name", true, 100)
	text("line1", a.Line1, "The street address", true, 200)
	text("line2", a.Line2, "The second address line", false, 200)
	text("city", a.City, "The city", true, 100)
	switch {
	case a.Postcode == "":
		errs["postcode"] = "Enter the postcode."
	case !postcodeRE.MatchString(strings.ToUpper(a.Postcode)):
		errs["postcode"] = "Enter a postcode of 3 to 12 letters, digits, spaces or hyphens."
	}
	switch {
	case a.Country == "":
		errs["country"] = "Choose the country."
	case orders.CountryName(a.Country) == "":
		errs["country"] = "Choose a country from the list: we do not deliver there."
	}
	return errs
}

// CountryOptions are the countries an address form offers.
func CountryOptions() []views.CountryOption {
	out := make([]views.CountryOption, len(orders.Countries))
	for i, c := range orders.Countries {
		out[i] = views.CountryOption{Code: c.Code, Name: c.Name}
	}
	return out
}

// AddressLines are an address as printed on a parcel, the country last.
func AddressLines(a orders.Address) []string {
	lines := []string{a.Name, a.Line1}
	if a.Line2 != "" {
		lines = append(lines, a.Line2)
	}
	return append(lines, a.Postcode+" "+a.City, orders.CountryName(a.Country))
}

// AddressForm is an address as a form shows it, with its messages.
func AddressForm(a orders.Address, errs map[string]string) views.CheckoutForm {
	clean := func(s string) string { return strings.ToValidUTF8(s, "") }
	return views.CheckoutForm{Name: clean(a.Name), Line1: clean(a.Line1), Line2: clean(a.Line2), City: clean(a.City),
		Postcode: clean(a.Postcode), Country: clean(a.Country), Errors: errs}
}
