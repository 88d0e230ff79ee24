package orders

// Region is a state, province or territory of a country whose addresses
// name one.
type Region struct {
	Code string // the ISO 3166-2 code after the country's: "IL" for US-IL
	Name string
}

// regionSet is the regions of one country and what its addresses call them.
type regionSet struct {
	Label   string // "State", "Province or territory"
	Regions []Region
}

// regions are the countries whose addresses need a region, by code: a
// parcel to the United States, Canada or Australia names its state,
// province or territory. Every other country's addresses have none.
var regions = map[string]regionSet{
	"US": {"State", []Region{
		{"AL", "Alabama"}, {"AK", "Alaska"}, {"AS", "American Samoa"}, {"AZ", "Arizona"}, {"AR", "Arkansas"},
		{"CA", "California"}, {"CO", "Colorado"}, {"CT", "Connecticut"}, {"DE", "Delaware"},
		{"DC", "District of Columbia"}, {"FL", "Florida"}, {"GA", "Georgia"}, {"GU", "Guam"}, {"HI", "Hawaii"},
		{"ID", "Idaho"}, {"IL", "Illinois"}, {"IN", "Indiana"}, {"IA", "Iowa"}, {"KS", "Kansas"}, {"KY", "Kentucky"},
		{"LA", "Louisiana"}, {"ME", "Maine"}, {"MD", "Maryland"}, {"MA", "Massachusetts"}, {"MI", "Michigan"},
		{"MN", "Minnesota"}, {"MS", "Mississippi"}, {"MO", "Missouri"}, {"MT", "Montana"}, {"NE", "Nebraska"},
		{"NV", "Nevada"}, {"NH", "New Hampshire"}, {"NJ", "New Jersey"}, {"NM", "New Mexico"}, {"NY", "New York"},
		{"NC", "North Carolina"}, {"ND", "North Dakota"}, {"MP", "Northern Mariana Islands"}, {"OH", "Ohio"},
		{"OK", "Oklahoma"}, {"OR", "Oregon"}, {"PA", "Pennsylvania"}, {"PR", "Puerto Rico"}, {"RI", "Rhode Island"},
		{"SC", "South Carolina"}, {"SD", "South Dakota"}, {"TN", "Tennessee"}, {"TX", "Texas"},
		{"VI", "US Virgin Islands"}, {"UT", "Utah"}, {"VT", "Vermont"}, {"VA", "Virginia"}, {"WA", "Washington"},
		{"WV", "West Virginia"}, {"WI", "Wisconsin"}, {"WY", "Wyoming"},
	}},
	"CA": {"Province or territory", []Region{
		{"AB", "Alberta"}, {"BC", "British Columbia"}, {"MB", "Manitoba"}, {"NB", "New Brunswick"},
		{"NL", "Newfoundland and Labrador"}, {"NT", "Northwest Territories"}, {"NS", "Nova Scotia"}, {"NU", "Nunavut"},
		{"ON", "Ontario"}, {"PE", "Prince Edward Island"}, {"QC", "Quebec"}, {"SK", "Saskatchewan"}, {"YT", "Yukon"},
	}},
	"AU": {"State or territory", []Region{
		{"ACT", "Australian Capital Territory"}, {"NSW", "New South Wales"}, {"NT", "Northern Territory"},
		{"QLD", "Queensland"}, {"SA", "South Australia"}, {"TAS", "Tasmania"}, {"VIC", "Victoria"},
		{"WA", "Western Australia"},
	}},
}

// RegionCountries are the countries whose addresses need a region, in the
// order the address forms group their regions.
var RegionCountries = []string{"US", "CA", "AU"}

// Regions are the regions of a country whose addresses need one, by
// name; none for every other country.
func Regions(country string) []Region { return regions[country].Regions }

// RegionLabel is what a country's addresses call their region ("State"),
// "" for a country without regions.
func RegionLabel(country string) string { return regions[country].Label }

// NeedsRegion reports whether a country's addresses must name a region.
func NeedsRegion(country string) bool { return len(regions[country].Regions) > 0 }

// RegionName is the name of a country's region, "" when it has no such
// region.
func RegionName(country, code string) string {
	for _, r := range regions[country].Regions {
		if r.Code == code {
			return r.Name
		}
	}
	return ""
}
