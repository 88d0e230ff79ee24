package shop

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/orders"
	"storefront/views"
)

// checkoutForm is POST /checkout's fields as typed.
type checkoutForm struct {
	Email, Name, Line1, Line2, City, Postcode, Country string
	Shipping, Payment                                  string
	// Total is the order total the shopper saw, as "12.34".
	Total string
}

// checkoutFields are the form's fields; each may be sent at most once.
var checkoutFields = []string{"email", "name", "line1", "line2", "city", "postcode", "country", "shipping", "payment", "total"}

// readCheckoutForm reads the posted fields. A field sent twice is a
// request our form cannot make (400); everything else is validated.
func readCheckoutForm(c echo.Context) (checkoutForm, error) {
	form, err := web.PostForm(c)
	if err != nil {
		return checkoutForm{}, err
	}
	v := make(map[string]string, len(checkoutFields))
	for _, name := range checkoutFields {
		switch vals := form[name]; len(vals) {
		case 0:
		case 1:
			v[name] = strings.TrimSpace(vals[0])
		default:
			return checkoutForm{}, web.BadRequest("Send each field of the checkout form once.")
		}
	}
	return checkoutForm{Email: v["email"], Name: v["name"], Line1: v["line1"], Line2: v["line2"], City: v["city"],
		Postcode: v["postcode"], Country: v["country"], Shipping: v["shipping"], Payment: v["payment"], Total: v["total"]}, nil
}

var (
	// emailRE is a plausible address: something@domain.tld, no spaces.
	emailRE = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)
	// postcodeRE covers the world's postcodes: letters, digits, spaces, hyphens.
	postcodeRE = regexp.MustCompile(`^[A-Z0-9][A-Z0-9 -]{1,10}[A-Z0-9]$`)
)

// validate returns a message per refused field. guest asks for an email.
func (f checkoutForm) validate(guest bool, payment func(code string) (orders.PaymentMethod, bool)) map[string]string {
	errs := map[string]string{}
	if guest {
		switch {
		case f.Email == "":
			errs["email"] = "Enter your email address: we send the order's news there."
		case len(f.Email) > 254 || !utf8.ValidString(f.Email) || !emailRE.MatchString(f.Email):
			errs["email"] = "Enter an email address such as name@example.com."
		}
	}
	text := func(field, value, label string, required bool, maxLen int) {
		switch {
		case !web.Printable(value):
			errs[field] = label + " contains characters we cannot print on a parcel."
		case value == "" && required:
			errs[field] = "Enter " + strings.ToLower(label) + "."
		case utf8.RuneCountInString(value) > maxLen:
			errs[field] = label + " is too long: use at most " + web.Itoa(int64(maxLen)) + " characters."
		}
	}
	text("name", f.Name, "Your full name", true, 100)
	text("line1", f.Line1, "The street address", true, 200)
	text("line2", f.Line2, "The second address line", false, 200)
	text("city", f.City, "The city", true, 100)
	switch {
	case f.Postcode == "":
		errs["postcode"] = "Enter the postcode."
	case !postcodeRE.MatchString(strings.ToUpper(f.Postcode)):
		errs["postcode"] = "Enter a postcode of 3 to 12 letters, digits, spaces or hyphens."
	}
	switch {
	case f.Country == "":
		errs["country"] = "Choose the country."
	case orders.CountryName(f.Country) == "":
		errs["country"] = "Choose a country from the list: we do not deliver there."
	}
	if !orders.ValidShipping(f.Shipping) {
		errs["shipping"] = "Choose standard or express delivery."
	}
	if _, ok := payment(f.Payment); !ok {
		errs["payment"] = "Choose how you want to pay."
	}
	if _, ok := orders.ParseMoney(f.Total); !ok {
		errs["total"] = "The total was missing from the form. Check it and place the order again."
	}
	return errs
}

// address is the delivery address typed.
func (f checkoutForm) address() orders.Address {
	return orders.Address{Name: f.Name, Line1: f.Line1, Line2: f.Line2, City: f.City, Postcode: strings.ToUpper(f.Postcode), Country: f.Country}
}

// setAddress fills the address fields, as offered from the last order.
func (f *checkoutForm) setAddress(a orders.Address) {
	f.Name, f.Line1, f.Line2, f.City, f.Postcode, f.Country = a.Name, a.Line1, a.Line2, a.City, a.Postcode, a.Country
}

// view is the form as the page shows it. Invalid UTF-8 is not echoed back.
func (f checkoutForm) view(errs map[string]string) views.CheckoutForm {
	clean := func(s string) string { return strings.ToValidUTF8(s, "") }
	return views.CheckoutForm{Email: clean(f.Email), Name: clean(f.Name), Line1: clean(f.Line1), Line2: clean(f.Line2),
		City: clean(f.City), Postcode: clean(f.Postcode), Country: clean(f.Country), Shipping: f.Shipping, Payment: f.Payment, Errors: errs}
}
