package orders

// Address is where an order is delivered.
type Address struct {
	Name     string
	Line1    string
	Line2    string // optional
	City     string
	Postcode string
	Country  string // ISO 3166-1 alpha-2, one of Countries
}

// Country is one country we deliver to.
type Country struct {
	Code string // ISO 3166-1 alpha-2
	Name string
}

// Countries are the countries we deliver to, in the order the checkout
// lists them.
var Countries = []Country{
	{"AR", "Argentina"}, {"AU", "Australia"}, {"AT", "Austria"}, {"BE", "Belgium"}, {"BR", "Brazil"},
	{"BG", "Bulgaria"}, {"CA", "Canada"}, {"CL", "Chile"}, {"CN", "China"}, {"HR", "Croatia"},
	{"CY", "Cyprus"}, {"CZ", "Czechia"}, {"DK", "Denmark"}, {"EE", "Estonia"}, {"FI", "Finland"},
	{"FR", "France"}, {"DE", "Germany"}, {"GR", "Greece"}, {"HK", "Hong Kong"}, {"HU", "Hungary"},
	{"IS", "Iceland"}, {"IN", "India"}, {"IE", "Ireland"}, {"IL", "Israel"}, {"IT", "Italy"},
	{"JP", "Japan"}, {"LV", "Latvia"}, {"LT", "Lithuania"}, {"LU", "Luxembourg"}, {"MT", "Malta"},
	{"MX", "Mexico"}, {"NL", "Netherlands"}, {"NZ", "New Zealand"}, {"NO", "Norway"}, {"PL", "Poland"},
	{"PT", "Portugal"}, {"RO", "Romania"}, {"SG", "Singapore"}, {"SK", "Slovakia"}, {"SI", "Slovenia"},
	{"ZA", "South Africa"}, {"KR", "South Korea"}, {"ES", "Spain"}, {"SE", "Sweden"}, {"CH", "Switzerland"},
	{"TW", "Taiwan"}, {"TR", "Turkey"}, {"UA", "Ukraine"}, {"GB", "United Kingdom"}, {"US", "United States"},
}

// CountryName is the name of a country code we deliver to, or "".
func CountryName(code string) string {
	for _, c := range Countries {
		if c.Code == code {
			return c.Name
		}
	}
	return ""
}
