package analytics_test

import (
	"fmt"
	"testing"

	"storefront/store/analytics"
	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// sizes gives the item the option Size in S, M, L and XL, 50 of each in
// stock, and returns the variants' ids by size.
func sizes(t *testing.T, st *wiring.Services, item int64) map[string]int64 {
	t.Helper()
	set := catalog.VariantSet{Options: []string{"Size"}}
	for _, size := range []string{"S", "M", "L", "XL"} {
		set.Variants = append(set.Variants, catalog.Variant{SKU: fmt.Sprintf("ALSO-%d-%s", item, size), Values: []string{size}, Stock: 50})
	}
	if err := st.Catalog.AddDemoVariants(t.Context(), map[int64]catalog.VariantSet{item: set}); err != nil {
		t.Fatal(err)
	}
	vs, err := st.Catalog.Variants(t.Context(), item)
	if err != nil || len(vs) != 4 {
		t.Fatalf("item %d's variants %v: %v", item, vs, err)
	}
	out := map[string]int64{}
	for _, v := range vs {
		out[v.Values[0]] = v.ID
	}
	return out
}

// zset reads a co-purchase ZSET as member -> score.
func zset(t *testing.T, st *wiring.Services, key string) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, z := range storetest.Must(st.Redis().ZRangeWithScores(t.Context(), key, 0, -1).Result())(t) {
		out[z.Member.(string)] = z.Score
	}
	return out
}

// Orders with variants count what was bought with each variant sold, each
// other line named with its variant ("<item>:<variant>", an item without
// options by its id), beside the item's own list of items; lines of the
// same item are not bought "with" each other. A variant's page reads its
// own list; a variant nobody bought with anything, and the item's page,
// read the item's.
func TestAlsoBoughtPerVariant(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	shirt, jacket := sizes(t, st, 8), sizes(t, st, 18)
	wiringtest.SetStock(t, st, 7, 50) // no options
	acct, _ := wiringtest.Shopper(t, st, "alice")
	line := func(item int64, variant int64) cart.Line { return cart.Line{ItemID: item, VariantID: variant, Qty: 1} }
	for _, order := range [][]cart.Line{
		{line(8, shirt["M"]), line(18, jacket["L"]), line(7, 0)},
		{line(8, shirt["M"]), line(18, jacket["L"])},
		{line(8, shirt["M"]), line(18, jacket["L"])},
		{line(8, shirt["S"]), line(18, jacket["XL"])},
		{line(8, shirt["M"]), line(8, shirt["L"]), line(7, 0)},
	} {
		for _, l := range order {
			if _, err := st.Cart.SetLine(ctx, acct, l); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := st.Orders.Checkout(ctx, wiringtest.Buy(acct, -1)); err != nil {
			t.Fatal(err)
		}
	}
	v := func(item, variant int64) string { return fmt.Sprintf("%d:%d", item, variant) }
	for key, want := range map[string]map[string]float64{
		keys.AlsoBoughtVariant(8, shirt["M"]):   {v(18, jacket["L"]): 3, "7": 2},
		keys.AlsoBoughtVariant(8, shirt["S"]):   {v(18, jacket["XL"]): 1},
		keys.AlsoBoughtVariant(8, shirt["L"]):   {"7": 1},
		keys.AlsoBoughtVariant(8, shirt["XL"]):  {},
		keys.AlsoBoughtVariant(18, jacket["L"]): {v(8, shirt["M"]): 3, "7": 1},
		keys.AlsoBought(8):                      {"18": 4, "7": 2},
		keys.AlsoBought(18):                     {"8": 4, "7": 1},
		keys.AlsoBought(7):                      {"8": 2, "18": 1},
	} {
		if got := zset(t, st, key); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s holds %v, want %v", key, got, want)
		}
	}
	if got := storetest.Must(st.Redis().HGet(ctx, keys.ItemCounts(8), "buyers").Result())(t); got != "5" {
		t.Errorf("item 8's buyers %s, want 5 (one per order)", got)
	}

	for _, tc := range []struct {
		name          string
		item, variant int64
		want          []analytics.Bought
		of            int64
	}{
		{"the bought variant", 8, shirt["M"], []analytics.Bought{{18, jacket["L"]}, {7, 0}}, shirt["M"]},
		{"the other side", 18, jacket["L"], []analytics.Bought{{8, shirt["M"]}, {7, 0}}, jacket["L"]},
		{"a variant bought alone", 8, shirt["XL"], []analytics.Bought{{18, 0}, {7, 0}}, 0},
		{"no variant chosen", 8, 0, []analytics.Bought{{18, 0}, {7, 0}}, 0},
		{"an item without options", 7, 0, []analytics.Bought{{8, 0}, {18, 0}}, 0},
	} {
		pipe := st.Redis().Pipeline()
		read := analytics.AddAlsoBoughtRead(ctx, pipe, tc.item, tc.variant)
		if _, err := pipe.Exec(ctx); err != nil {
			t.Fatal(err)
		}
		got := read.Result()
		if fmt.Sprint(got.Lines) != fmt.Sprint(tc.want) || got.Variant != tc.of {
			t.Errorf("%s: read %v of variant %d, want %v of %d", tc.name, got.Lines, got.Variant, tc.want, tc.of)
		}
	}
}

// A variant's list is bounded like the item's: an order of more lines
// than are kept leaves the most that are kept.
func TestAlsoBoughtPerVariantIsBounded(t *testing.T) {
	rdb := storetest.Redis(t)
	ctx := t.Context()
	lines := []analytics.Bought{{ItemID: 1, VariantID: 5}}
	for i := range int64(230) {
		lines = append(lines, analytics.Bought{ItemID: 1000 + i, VariantID: 2000 + i})
	}
	pipe := rdb.Pipeline()
	analytics.AddBoughtTogether(ctx, pipe, lines)
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{keys.AlsoBoughtVariant(1, 5), keys.AlsoBought(1), keys.AlsoBoughtVariant(1000, 2000)} {
		if n := storetest.Must(rdb.ZCard(ctx, key).Result())(t); n != 200 {
			t.Errorf("%s holds %d, want the 200 kept", key, n)
		}
	}
}
