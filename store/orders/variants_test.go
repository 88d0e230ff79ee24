package orders_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/orders"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// sizes gives item 7 the options Size with S (stock s) and M (stock m),
// M at its own price, and returns the two variants.
func sizes(t *testing.T, st *wiring.Services, s, m int64) (catalog.Variant, catalog.Variant) {
	t.Helper()
	set := catalog.VariantSet{Options: []string{"Size"}, Variants: []catalog.Variant{
		{SKU: "T-7-S", Values: []string{"S"}, Stock: s},
		{SKU: "T-7-M", Values: []string{"M"}, Stock: m, OwnPrice: 1234, PriceSet: true},
	}}
	if err := st.Catalog.SaveVariants(t.Context(), 7, set); err != nil {
		t.Fatal(err)
	}
	vs := storetest.Must(st.Catalog.Variants(t.Context(), 7))(t)
	if len(vs) != 2 {
		t.Fatalf("variants %+v", vs)
	}
	return vs[0], vs[1]
}

func variantStock(t *testing.T, st *wiring.Services, id int64) int64 {
	t.Helper()
	var n int64
	if err := st.DB().QueryRowContext(t.Context(), `SELECT stock FROM item_variants WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// Many shoppers race for the last units of one variant: exactly its stock
// is sold, the other variant and the item's summed stock agree, and a
// cancelled order puts its units back on the variant it took them from.
func TestLastUnitsOfAVariant(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	small, medium := sizes(t, st, 4, 3)
	const shoppers = 24
	owners := make([]cart.Owner, shoppers)
	for i := range owners {
		owners[i], _ = wiringtest.Shopper(t, st, fmt.Sprintf("racer%d", i))
		if _, err := st.Cart.SetLine(ctx, owners[i], cart.Line{ItemID: 7, VariantID: medium.ID, Qty: 1}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var placed []orders.Order
	refused := 0
	for _, o := range owners {
		wg.Add(1)
		go func() {
			defer wg.Done()
			order, err := st.Orders.Checkout(ctx, wiringtest.Buy(o, -1))
			var ce *orders.CheckoutError
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				placed = append(placed, order)
			case errors.As(err, &ce):
				refused++
			default:
				t.Errorf("checkout: %v", err)
			}
		}()
	}
	wg.Wait()
	if len(placed) != 3 || refused != shoppers-3 {
		t.Fatalf("%d orders placed, %d refused; want 3 and %d", len(placed), refused, shoppers-3)
	}
	if s := variantStock(t, st, medium.ID); s != 0 {
		t.Errorf("M stock %d, want 0", s)
	}
	if s := variantStock(t, st, small.ID); s != 4 {
		t.Errorf("S stock %d, want 4", s)
	}
	if s := wiringtest.StockOf(t, st, 7); s != 4 {
		t.Errorf("item stock %d, want the variants' sum 4", s)
	}
	l := placed[0].Lines[0]
	if l.VariantID != medium.ID || l.SKU != "T-7-M" || l.Variant != "Size: M" || l.PriceCents != 1234 {
		t.Errorf("order line %+v", l)
	}
	if _, err := st.Orders.MoveOrder(ctx, placed[0].ID, 0, orders.OrderCancelled, orders.AdminActor("a")); err != nil {
		t.Fatal(err)
	}
	if s, sum := variantStock(t, st, medium.ID), wiringtest.StockOf(t, st, 7); s != 1 || sum != 5 {
		t.Errorf("after the cancel: M stock %d, item %d; want 1 and 5", s, sum)
	}
}

// A line of the implicit variant of an item that now has options, and a
// line naming another item's variant, are refused and change nothing.
func TestCheckoutRefusesLinesWithoutTheirVariant(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	tok, _ := wiringtest.Shopper(t, st, "alice")
	wiringtest.SetLine(t, st, tok, 7, 1) // before item 7 had options
	small, _ := sizes(t, st, 4, 3)
	if _, err := st.Cart.SetLine(ctx, tok, cart.Line{ItemID: 9, VariantID: small.ID, Qty: 1}); err != nil {
		t.Fatal(err)
	}
	before := countOrders(t, st)
	for _, want := range []cart.Line{{ItemID: 7}, {ItemID: 9, VariantID: small.ID}} {
		_, err := st.Orders.Checkout(ctx, wiringtest.Buy(tok, -1))
		var ce *orders.CheckoutError
		if !errors.As(err, &ce) || len(ce.Problems) != 1 {
			t.Fatalf("checkout: %v, want the line %+v refused", err, want)
		}
		if p := ce.Problems[0]; p.Reason != orders.ProblemGone || p.ItemID != want.ItemID || p.VariantID != want.VariantID {
			t.Errorf("problem %+v, want %+v gone", p, want)
		}
		if _, err := st.Cart.SetLine(ctx, tok, cart.Line{ItemID: want.ItemID, VariantID: want.VariantID}); err != nil {
			t.Fatal(err)
		}
		wiringtest.SetLine(t, st, tok, 5, 1) // a good line beside the bad one
	}
	if countOrders(t, st) != before || variantStock(t, st, small.ID) != 4 || wiringtest.StockOf(t, st, 7) != 7 {
		t.Error("a refused checkout changed something")
	}
}

// Saving a variant set that is wrong changes nothing: a duplicate SKU, a
// SKU another item has, a negative or absurd price or stock.
func TestSaveVariantsRefusesBadSets(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	sizes(t, st, 4, 3)
	vs := storetest.Must(st.Catalog.Variants(ctx, 7))(t)
	good := func() catalog.VariantSet {
		return catalog.VariantSet{Options: []string{"Size"}, Variants: []catalog.Variant{vs[0], vs[1]}}
	}
	for name, edit := range map[string]func(*catalog.VariantSet){
		"duplicate sku":     func(s *catalog.VariantSet) { s.Variants[1].SKU = "t-7-s" },
		"another item's":    func(s *catalog.VariantSet) { s.Variants[1].SKU = catalog.DefaultSKU(8) },
		"negative price":    func(s *catalog.VariantSet) { s.Variants[0].OwnPrice, s.Variants[0].PriceSet = -1, true },
		"absurd price":      func(s *catalog.VariantSet) { s.Variants[0].OwnPrice, s.Variants[0].PriceSet = 1<<40, true },
		"negative stock":    func(s *catalog.VariantSet) { s.Variants[0].Stock = -5 },
		"absurd stock":      func(s *catalog.VariantSet) { s.Variants[0].Stock = 1 << 40 },
		"same options":      func(s *catalog.VariantSet) { s.Variants[1].Values = []string{"S"} },
		"a variant dropped": func(s *catalog.VariantSet) { s.Variants = s.Variants[:1] },
		"four options":      func(s *catalog.VariantSet) { s.Options = []string{"A", "B", "C", "D"} },
	} {
		set := good()
		set.Variants = append([]catalog.Variant(nil), set.Variants...)
		set.Variants[0].Values = []string{"S"}
		set.Variants[1].Values = []string{"M"}
		set.Variants = append(set.Variants, catalog.Variant{SKU: "T-7-L", Values: []string{"L"}, Stock: 2})
		edit(&set)
		var ve *catalog.VariantError
		if err := st.Catalog.SaveVariants(ctx, 7, set); !errors.As(err, &ve) {
			t.Errorf("%s: %v, want a VariantError", name, err)
		}
		after := storetest.Must(st.Catalog.Variants(ctx, 7))(t)
		if fmt.Sprint(after) != fmt.Sprint(vs) || wiringtest.StockOf(t, st, 7) != 7 {
			t.Errorf("%s: changed the variants to %+v", name, after)
		}
	}
}
