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
	Email, Name, Line1, Line2, City, Region, Postcode, Country, Phone string
	Shipping, Payment                                                 string
	// Total is the order total the shopper saw, as "12.34".
	Total string
	// Review asks to price the review again (another country) instead
	// of placing the order.
	Review bool
}

// checkoutFields are the form's fields; each may be sent at most once.
var checkoutFields = []string{"email", "name", "line1", "line2", "city", "region", "postcode", "country", "phone", "shipping", "payment", "total", "review"}

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
		Region: v["region"], Postcode: v["postcode"], Country: v["country"], Phone: v["phone"], Shipping: v["shipping"], Payment: v["payment"], Total: v["total"],
		Review: v["review"] == "1"}, nil
}

// emailRE is a plausible address: something@domain.tld, no spaces.
var emailRE = regexp.MustCompile(`^[^\s@]+@[^\s@]+\.[^\s@]+$`)

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
	for field, msg := range web.AddressProblems(f.address()) {
		errs[field] = msg
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
	return web.ReadAddress(map[string]string{"name": f.Name, "line1": f.Line1, "line2": f.Line2, "city": f.City,
		"region": f.Region, "postcode": f.Postcode, "country": f.Country, "phone": f.Phone})
}

// setAddress fills the address fields, as offered from the last order.
func (f *checkoutForm) setAddress(a orders.Address) {
	f.Name, f.Line1, f.Line2, f.City, f.Region, f.Postcode, f.Country, f.Phone = a.Name, a.Line1, a.Line2, a.City, a.Region, a.Postcode, a.Country, a.Phone
}

// view is the form as the page shows it. Invalid UTF-8 is not echoed back.
func (f checkoutForm) view(errs map[string]string) views.CheckoutForm {
	clean := func(s string) string { return strings.ToValidUTF8(s, "") }
	return views.CheckoutForm{Email: clean(f.Email), Name: clean(f.Name), Line1: clean(f.Line1), Line2: clean(f.Line2),
		City: clean(f.City), Region: clean(f.Region), Postcode: clean(f.Postcode), Country: clean(f.Country), Phone: clean(f.Phone), Shipping: f.Shipping, Payment: f.Payment, Errors: errs}
}
