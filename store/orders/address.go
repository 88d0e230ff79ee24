package orders

import "strings"

// Address is where an order is delivered.
type Address struct {
	Name     string
	Line1    string
	Line2    string // optional
	City     string
	Region   string // a state or province's code ("IL") where the country needs one (NeedsRegion), else ""
	Postcode string
	Country  string // ISO 3166-1 alpha-2, one of Countries
	Phone    string // optional, as typed: for the carrier
}

// Country is one country of the address forms.
type Country struct {
	Code string // ISO 3166-1 alpha-2
	Name string
}

// CountryName is the name of a country code, or "" for a code that is
// not a country.
func CountryName(code string) string {
	for _, c := range Countries {
		if c.Code == code {
			return c.Name
		}
	}
	return ""
}

// Lines are the address as printed on a parcel, the country last and the
// phone left out: "Chicago, IL 60601" where the country has regions (as
// the United States, Canada and Australia write them), "N1 1AA London"
// elsewhere. Empty lines are left out.
func (a Address) Lines() []string {
	place := strings.TrimSpace(a.Postcode + " " + a.City)
	if a.Region != "" {
		place = strings.TrimSpace(a.City + ", " + strings.TrimSpace(a.Region+" "+a.Postcode))
	}
	var out []string
	for _, l := range []string{a.Name, a.Line1, a.Line2, place, CountryName(a.Country)} {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// shipColumns are an order's delivery address columns, in the order
// shipTo scans them.
const shipColumns = `ship_name, ship_line1, ship_line2, ship_city, ship_region, ship_postcode, ship_country, ship_phone`

// shipTo are the scan destinations of shipColumns.
func (a *Address) shipTo() []any {
	return []any{&a.Name, &a.Line1, &a.Line2, &a.City, &a.Region, &a.Postcode, &a.Country, &a.Phone}
}
