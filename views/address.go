package views

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// countryOf finds a country of the list by code.
func countryOf(countries []CountryOption, code string) (CountryOption, bool) {
	for _, c := range countries {
		if c.Code == code {
			return c, true
		}
	}
	return CountryOption{}, false
}

// regionCountriesHint names the countries whose addresses need a region.
func regionCountriesHint(countries []CountryOption) string {
	var names []string
	for _, c := range countries {
		if len(c.Regions) > 0 {
			names = append(names, c.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	list := names[0]
	if n := len(names); n > 1 {
		list = strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	}
	return "Only for " + list + ": choose the one of your address. Leave it at None for any other country."
}

// lowerFirst lower-cases the first letter: "State" in "Choose the state".
func lowerFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}
