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

// phoneRE is a phone number as people write it: digits, spaces, "+",
// "-", "." and parentheses. How many digits it has is checked apart.
var phoneRE = regexp.MustCompile(`^\+?[0-9 ().-]+$`)

// AddressFields are the fields of a delivery address form.
var AddressFields = []string{"name", "line1", "line2", "city", "region", "postcode", "country", "phone"}

// ReadAddress reads a delivery address from posted fields (each trimmed,
// the postcode upper-cased), as the checkout and the address book take it.
// A region sent for a country without regions is dropped: until a country
// is chosen the form offers every country's regions (so that it works in
// one step without scripts), and None is easy to miss.
func ReadAddress(v map[string]string) orders.Address {
	a := orders.Address{Name: v["name"], Line1: v["line1"], Line2: v["line2"], City: v["city"], Region: v["region"],
		Postcode: strings.ToUpper(v["postcode"]), Country: v["country"], Phone: v["phone"]}
	if a.Country != "" && !orders.NeedsRegion(a.Country) {
		a.Region = ""
	}
	return a
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
		errs["country"] = "Choose a country from the list."
	}
	if msg := regionProblem(a); msg != "" {
		errs["region"] = msg
	}
	if msg := PhoneProblem(a.Phone); msg != "" {
		errs["phone"] = msg
	}
	return errs
}

// regionProblem says why an address's region is refused: a country whose
// addresses need one must name one of its own.
func regionProblem(a orders.Address) string {
	if !orders.NeedsRegion(a.Country) {
		return ""
	}
	label := strings.ToLower(orders.RegionLabel(a.Country))
	switch {
	case a.Region == "":
		return "Choose the " + label + ": addresses in " + orders.CountryName(a.Country) + " need one."
	case orders.RegionName(a.Country, a.Region) == "":
		return "Choose a " + label + " of " + orders.CountryName(a.Country) + " from the list."
	}
	return ""
}

// PhoneProblem says why a phone number is refused ("" when it is none or
// one a carrier can dial): loosely checked, as numbers are written in
// many ways, but with 5 to 15 digits (the international maximum).
func PhoneProblem(phone string) string {
	if phone == "" {
		return ""
	}
	digits := 0
	for _, r := range phone {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	if len(phone) > 30 || !phoneRE.MatchString(phone) || digits < 5 || digits > 15 {
		return "Enter a phone number of 5 to 15 digits (spaces, +, -, dots and brackets allowed), or leave it empty."
	}
	return ""
}

// CountryOptions are the countries an address form offers, each with its
// regions when its addresses need one.
func CountryOptions() []views.CountryOption {
	out := make([]views.CountryOption, len(orders.Countries))
	for i, c := range orders.Countries {
		out[i] = views.CountryOption{Code: c.Code, Name: c.Name, RegionLabel: orders.RegionLabel(c.Code)}
		for _, r := range orders.Regions(c.Code) {
			out[i].Regions = append(out[i].Regions, views.RegionOption{Code: r.Code, Name: r.Name})
		}
	}
	return out
}

// AddressLines are an address as printed on a parcel, the country last,
// then its phone number when it has one.
func AddressLines(a orders.Address) []string {
	lines := a.Lines()
	if a.Phone != "" {
		lines = append(lines, "Phone: "+a.Phone)
	}
	return lines
}

// AddressForm is an address as a form shows it, with its messages.
func AddressForm(a orders.Address, errs map[string]string) views.CheckoutForm {
	clean := func(s string) string { return strings.ToValidUTF8(s, "") }
	return views.CheckoutForm{Name: clean(a.Name), Line1: clean(a.Line1), Line2: clean(a.Line2), City: clean(a.City),
		Region: clean(a.Region), Postcode: clean(a.Postcode), Country: clean(a.Country), Phone: clean(a.Phone), Errors: errs}
}
