package seed

import (
	"fmt"
	mrand "math/rand/v2"
	"strings"
	"time"

	"storefront/store/catalog"
)

// DemoItemCount is how many items an empty catalog is seeded with.
const DemoItemCount = 1200

type demoCategory struct {
	name    string
	nouns   []string
	minCost int64 // cents
	maxCost int64
	blurb   string
}

var demoCategories = []demoCategory{
	{"Kitchen", []string{"Chef's Knife", "Skillet", "Dutch Oven", "Cutting Board", "Pour-Over Kettle", "Spice Grinder", "Mixing Bowl Set", "Saucepan"}, 1200, 18900, "Built for daily cooking and easy to clean."},
	{"Outdoors", []string{"Trail Tent", "Sleeping Bag", "Camp Stove", "Headlamp", "Daypack", "Water Filter", "Hammock", "Trekking Poles"}, 1500, 42900, "Light enough to carry, tough enough to last."},
	{"Books", []string{"Field Guide", "Cookbook", "Travel Journal", "Atlas", "Poetry Collection", "Sketchbook", "Novel", "Almanac"}, 700, 5900, "Printed on acid-free paper with a sewn binding."},
	{"Electronics", []string{"Bluetooth Speaker", "USB-C Charger", "Noise-Cancelling Headphones", "E-Reader", "Desk Lamp", "Power Bank", "Webcam", "Mechanical Keyboard"}, 1900, 34900, "Comes with a two-year warranty."},
	{"Garden", []string{"Pruning Shears", "Watering Can", "Raised Bed Kit", "Seed Starter Tray", "Garden Kneeler", "Compost Bin", "Trowel", "Hose Reel"}, 900, 21900, "Weather-resistant and made to be left outside."},
	{"Toys", []string{"Building Blocks", "Puzzle", "Wooden Train Set", "Kite", "Board Game", "Plush Bear", "Marble Run", "Science Kit"}, 800, 8900, "Safety-tested for ages three and up."},
	{"Office", []string{"Notebook", "Fountain Pen", "Desk Organizer", "Monitor Stand", "Ergonomic Chair Cushion", "Label Maker", "Planner", "Paper Tray"}, 500, 15900, "Makes the desk a calmer place to work."},
	{"Apparel", []string{"Rain Jacket", "Wool Socks", "Linen Shirt", "Canvas Sneakers", "Beanie", "Fleece Pullover", "Denim Jacket", "Scarf"}, 1400, 24900, "Cut for comfort, stitched to last."},
	{"Home", []string{"Throw Blanket", "Ceramic Vase", "Candle", "Wall Clock", "Table Lamp", "Storage Basket", "Picture Frame", "Doormat"}, 900, 17900, "Adds warmth to any room."},
	{"Sports", []string{"Yoga Mat", "Jump Rope", "Water Bottle", "Resistance Bands", "Tennis Racket", "Cycling Gloves", "Foam Roller", "Basketball"}, 800, 19900, "For training days and rest days alike."},
}

var demoAdjectives = []string{"Classic", "Compact", "Deluxe", "Everyday", "Heritage", "Nordic", "Pro", "Rustic", "Studio", "Urban", "Vintage", "Summit", "Coastal", "Midnight", "Evergreen"}
var demoColours = []string{"Slate", "Sage", "Amber", "Indigo", "Charcoal", "Sand", "Terracotta", "Ivory", "Olive", "Cobalt"}

// DemoItems returns the deterministic demo catalog: the same items with the
// same ids on every machine.
func DemoItems(now time.Time) []catalog.Item {
	rng := mrand.New(mrand.NewPCG(20261121, 42))
	items := make([]catalog.Item, 0, DemoItemCount)
	seen := map[string]bool{}
	for i := 1; i <= DemoItemCount; i++ {
		cat := demoCategories[(i-1)%len(demoCategories)]
		var name string
		for {
			name = fmt.Sprintf("%s %s %s", demoAdjectives[rng.IntN(len(demoAdjectives))],
				demoColours[rng.IntN(len(demoColours))], cat.nouns[rng.IntN(len(cat.nouns))])
			if !seen[name] {
				break
			}
			name += fmt.Sprintf(" No. %d", i)
			if !seen[name] {
				break
			}
		}
		seen[name] = true
		price := cat.minCost + rng.Int64N(cat.maxCost-cat.minCost)
		price = price/100*100 + 99 // prices end in .99
		stock := int64(rng.IntN(120))
		if rng.IntN(12) == 0 {
			stock = 0 // about one in twelve is sold out
		}
		items = append(items, catalog.Item{
			ID:          int64(i),
			Slug:        catalog.Slugify(name),
			Name:        name,
			Description: fmt.Sprintf("The %s in %s. %s Part of our %s range.", strings.ToLower(name), strings.ToLower(demoColourOf(name)), cat.blurb, strings.ToLower(cat.name)),
			Category:    cat.name,
			PriceCents:  price,
			Stock:       stock,
			UpdatedAt:   now.Unix(),
		})
	}
	return items
}

func demoColourOf(name string) string {
	for _, c := range demoColours {
		if strings.Contains(name, c) {
			return c
		}
	}
	return "natural"
}

// demoSizes are the sizes every Apparel item comes in.
var demoSizes = []string{"S", "M", "L", "XL"}

// DemoVariants returns the demo catalog's options and variants by item
// id: every Apparel item in sizes S, M, L and XL (XL at $2 more), every
// third one also in two colours, and every fourth Home item in three
// colours. Each item's stock is shared out over its variants, so a sold
// out item stays sold out; some variants show a compare-at price.
func DemoVariants(items []catalog.Item) map[int64]catalog.VariantSet {
	out := map[int64]catalog.VariantSet{}
	apparel, home := 0, 0
	for _, it := range items {
		var set catalog.VariantSet
		switch it.Category {
		case "Apparel":
			apparel++
			set.Options = []string{"Size"}
			combos := [][]string{}
			colours := []string{""}
			if apparel%3 == 0 {
				set.Options = append(set.Options, "Colour")
				colours = []string{demoColourOf(it.Name), "Black"}
			}
			for _, c := range colours {
				for _, size := range demoSizes {
					combos = append(combos, append([]string{size}, nonEmpty(c)...))
				}
			}
			set.Variants = demoVariantRows(it, combos)
			for i := range set.Variants {
				if set.Variants[i].Values[0] == "XL" {
					set.Variants[i].OwnPrice, set.Variants[i].PriceSet = it.PriceCents+200, true
				}
			}
		case "Home":
			home++
			if home%4 != 0 {
				continue
			}
			set.Options = []string{"Colour"}
			combos := [][]string{{demoColourOf(it.Name)}}
			for _, c := range []string{"Ivory", "Charcoal", "Sand"} {
				if len(combos) < 3 && c != combos[0][0] {
					combos = append(combos, []string{c})
				}
			}
			set.Variants = demoVariantRows(it, combos)
		default:
			continue
		}
		if len(out)%5 == 0 { // the first item with variants, then every fifth
			set.Variants[0].CompareAtCents = it.PriceCents + 1000
		}
		out[it.ID] = set
	}
	return out
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// demoVariantRows makes one variant per combination, sharing out the
// item's stock and naming each SKU after the item's and its values.
func demoVariantRows(it catalog.Item, combos [][]string) []catalog.Variant {
	n := int64(len(combos))
	out := make([]catalog.Variant, len(combos))
	for i, vals := range combos {
		k := int64(i)
		sku := catalog.DefaultSKU(it.ID)
		for _, v := range vals {
			sku += "-" + strings.ToUpper(strings.ReplaceAll(v, " ", ""))
		}
		out[i] = catalog.Variant{SKU: sku, Values: vals, Stock: it.Stock*(k+1)/n - it.Stock*k/n}
	}
	return out
}
