// Package wiringtest is test support, not part of the shop: the whole
// shop's data layer, built as main builds it, on the test backends that
// store/storetest picks, migrated and seeded.
package wiringtest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"storefront/store/cart"
	"storefront/store/orders"
	"storefront/store/pagecache"
	"storefront/store/storetest"
	"storefront/wiring"
)

// Options are small, fast defaults for tests.
func Options() wiring.Options {
	return wiring.Options{
		RedisMode:        storetest.Backend(),
		SessionLimit:     10_000_000,
		ViewedPerSession: 25,
		PageCacheTTL:     300 * time.Second,
		PageCacheTop:     10_000,
		ViewedKeep:       20_000,
		RescaleInterval:  5 * time.Minute,
		GroupCacheTTL:    60 * time.Second,
		VoteWindow:       168 * time.Hour,
		VoteScore:        432,
		PasswordCost:     bcrypt.MinCost,
	}
}

// New returns a migrated, seeded shop on a clean Redis and database.
// edit, if given, adjusts the options first.
func New(t testing.TB, edit ...func(*wiring.Options)) *wiring.Services {
	t.Helper()
	opt := Options()
	for _, f := range edit {
		f(&opt)
	}
	db := dbFromTemplate(t, opt)
	st := wiring.New(storetest.Redis(t), db, opt, storetest.Logger(t))
	t.Cleanup(st.Close)
	ctx := context.Background()
	if err := st.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	if _, err := st.SeedDemo(ctx, storetest.AdminPassword); err != nil {
		t.Fatalf("seed: %v", err)
	}
	return st
}

// Shopper creates an account and a signed-in session for it, and returns
// the account's cart.
func Shopper(t testing.TB, st *wiring.Services, name string) (cart.Owner, int64) {
	t.Helper()
	ctx := t.Context()
	u, err := st.Sessions.CreateUser(ctx, name, "password for "+name)
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	token := "token-" + name
	if err := st.Sessions.CreateSession(ctx, token, u.ID); err != nil {
		t.Fatalf("create session: %v", err)
	}
	return cart.Owner{UserID: u.ID, Token: token}, u.ID
}

// Buy is a checkout request for owner's cart at the expected total
// (negative: unchecked) with a valid address and methods.
func Buy(owner cart.Owner, total int64) orders.CheckoutRequest {
	return orders.CheckoutRequest{Cart: owner, ExpectTotal: total, Shipping: orders.ShippingStandard, Payment: orders.PayInvoice,
		Address: orders.Address{Name: "Ada Lovelace", Line1: "1 Main St", City: "London", Postcode: "N1 1AA", Country: "GB"}}
}

// SetStock sets an item's stock behind the shop's back, as another
// writer of the database would.
func SetStock(t testing.TB, st *wiring.Services, id, stock int64) {
	t.Helper()
	if _, err := st.DB().ExecContext(t.Context(), `UPDATE items SET stock = $1 WHERE id = $2`, stock, id); err != nil {
		t.Fatal(err)
	}
}

// StockOf reads an item's stock from the database.
func StockOf(t testing.TB, st *wiring.Services, id int64) int64 {
	t.Helper()
	var n int64
	if err := st.DB().QueryRowContext(t.Context(), `SELECT stock FROM items WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// SetLine sets a cart line and returns the cart.
func SetLine(t testing.TB, st *wiring.Services, owner cart.Owner, item, qty int64) cart.Cart {
	t.Helper()
	c, err := st.Cart.SetCartLine(t.Context(), owner, item, qty)
	if err != nil {
		t.Fatalf("set cart line %d=%d: %v", item, qty, err)
	}
	return c
}

// GuestCart creates a guest session and returns its cart.
func GuestCart(t testing.TB, st *wiring.Services, token string) cart.Owner {
	t.Helper()
	if err := st.Sessions.CreateSession(t.Context(), token, 0); err != nil {
		t.Fatal(err)
	}
	return cart.Owner{Token: token}
}

// Ticking sets the shop's clock to one that moves a second each time it
// is read, so that events one after another have distinct, ordered times.
func Ticking(st *wiring.Services) {
	var n atomic.Int64
	start := time.Now()
	st.SetClock(func() time.Time { return start.Add(time.Duration(n.Add(1)) * time.Second) })
}

// WantCart fails the test unless the cart holds exactly the lines want,
// in order, with their total count.
func WantCart(t testing.TB, got cart.Cart, want ...cart.Line) {
	t.Helper()
	var count int64
	for _, l := range want {
		count += l.Qty
	}
	if len(got.Lines) != len(want) || got.Count != count {
		t.Fatalf("cart %+v, want lines %+v (count %d)", got, want, count)
	}
	for i := range want {
		if got.Lines[i] != want[i] {
			t.Fatalf("cart %+v, want lines %+v", got.Lines, want)
		}
	}
}

// PageHTML is a minimal item page for name with one per-visitor hole, as
// the views mark them.
func PageHTML(name string) []byte {
	return []byte(`<html><!--hole:account-->anon<!--/hole:account--><h1>` + name + `</h1></html>`)
}

// PageRender renders PageHTML of the item's name: a page cache render
// function for tests that do not look at the markup.
func PageRender(_ context.Context, d pagecache.PageData) ([]byte, error) {
	return PageHTML(d.Item.Name), nil
}
