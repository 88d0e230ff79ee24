package orders

import (
	"context"
	"errors"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/platform"
	"storefront/store/pricing"
	"storefront/store/ratelimit"
	"storefront/store/seed"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/store/workers"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// shop is what the checkout's internal tests build from the parts: the
// orders over a seeded catalog, with carts and accounts.
type shop struct {
	*Service
	accounts *sessions.Service
}

func newShop(t *testing.T) shop {
	t.Helper()
	b := storetest.Base(t)
	host := workers.NewHost(b)
	cat := catalog.New(b, host)
	carts := cart.New(b, 0)
	if err := seed.New(b, seed.Options{}, seed.Deps{Catalog: cat}).Items(t.Context()); err != nil {
		t.Fatal(err)
	}
	accounts := sessions.New(b, sessions.Options{PasswordCost: bcrypt.MinCost}, ratelimit.New(b), carts, host)
	return shop{Service: New(b, Options{}, host, cat, carts, pricing.New(b, pricing.Options{PricesIncludeTax: true})), accounts: accounts}
}

// shopper is a new account's cart owner.
func (s shop) shopper(t *testing.T, name string) (cart.Owner, int64) {
	t.Helper()
	u, err := s.accounts.CreateUser(t.Context(), name, "password for "+name)
	if err != nil {
		t.Fatal(err)
	}
	return cart.Owner{UserID: u.ID, Token: "token-" + name}, u.ID
}

func (s shop) setStock(t *testing.T, id, stock int64) {
	t.Helper()
	if _, err := s.db.ExecContext(t.Context(), `UPDATE items SET stock = $1 WHERE id = $2`, stock, id); err != nil {
		t.Fatal(err)
	}
}

func (s shop) stockOf(t *testing.T, id int64) int64 {
	t.Helper()
	var n int64
	if err := s.db.QueryRowContext(t.Context(), `SELECT stock FROM items WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (s shop) orderCount(t *testing.T) int {
	t.Helper()
	var n int
	if err := s.db.QueryRowContext(t.Context(), `SELECT COUNT(*) FROM orders`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// request is a checkout of owner's cart with a valid address, unchecked
// total.
func request(owner cart.Owner) CheckoutRequest {
	return CheckoutRequest{Cart: owner, ExpectTotal: -1, Shipping: ShippingStandard, Payment: PayInvoice,
		Address: Address{Name: "Ada Lovelace", Line1: "1 Main St", City: "London", Postcode: "N1 1AA", Country: "GB"}}
}

// TestCheckoutTransactionRefusesArchivedAndBanned: the checkout
// transaction itself (without the pre-check, which a racing archive or
// ban can pass) refuses an archived item and a banned account, and
// changes nothing.
func TestCheckoutTransactionRefusesArchivedAndBanned(t *testing.T) {
	s := newShop(t)
	ctx := t.Context()
	owner, _ := s.shopper(t, "arch")
	s.setStock(t, 7, 5)
	if _, err := s.catalog.SetItemArchived(ctx, 7, true); err != nil {
		t.Fatal(err)
	}
	_, err := placeOrderOnly(t.Context(), s, request(owner), []cart.Line{{ItemID: 7, Qty: 1}})
	var ce *CheckoutError
	if !errors.As(err, &ce) || len(ce.Problems) != 1 || ce.Problems[0].Reason != ProblemGone {
		t.Fatalf("archived: %v", err)
	}
	if _, err := s.catalog.SetItemArchived(ctx, 7, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.accounts.BanUser(ctx, "arch"); err != nil {
		t.Fatal(err)
	}
	if _, err := placeOrderOnly(t.Context(), s, request(owner), []cart.Line{{ItemID: 7, Qty: 1}}); !errors.Is(err, platform.ErrBanned) {
		t.Fatalf("banned: %v", err)
	}
	if s.orderCount(t) != 0 || s.stockOf(t, 7) != 5 {
		t.Fatalf("a refused checkout changed something: %d orders, stock %d", s.orderCount(t), s.stockOf(t, 7))
	}
}

// The transaction itself (without the pre-check, as when another checkout
// takes the stock in between) rolls back the lines it already took.
func TestCheckoutTransactionRollsBack(t *testing.T) {
	s := newShop(t)
	ctx := t.Context()
	owner, _ := s.shopper(t, "alice")
	s.setStock(t, 7, 5)
	s.setStock(t, 8, 1)
	_, err := placeOrderOnly(ctx, s, request(owner), []cart.Line{{ItemID: 7, Qty: 2}, {ItemID: 8, Qty: 2}, {ItemID: 999999, Qty: 1}})
	var ce *CheckoutError
	if !errors.As(err, &ce) || len(ce.Problems) != 2 {
		t.Fatalf("err %v, want two line problems", err)
	}
	if ce.Problems[0].ItemID != 8 || ce.Problems[0].Reason != ProblemShort || ce.Problems[0].Available != 1 ||
		ce.Problems[1].Reason != ProblemGone {
		t.Errorf("problems %+v", ce.Problems)
	}
	if n := s.stockOf(t, 7); n != 5 {
		t.Errorf("stock of item 7 is %d after a rolled back checkout, want 5", n)
	}
	if s.orderCount(t) != 0 {
		t.Error("order written")
	}
}

// A line changed in another tab while the order was being placed stays in
// the cart; the lines ordered as they were leave it.
func TestCheckoutKeepsLinesChangedMeanwhile(t *testing.T) {
	s := newShop(t)
	ctx := t.Context()
	tok, uid := s.shopper(t, "alice")
	setLine(t, s, tok, 7, 1)
	setLine(t, s, tok, 8, 4) // was 2 when the order was placed
	s.afterCheckout(ctx, tok, Order{ID: 1, UserID: uid, Lines: []OrderLine{{ItemID: 7, Qty: 1}, {ItemID: 8, Qty: 2}}}, false, "")
	c := storetest.Must(s.carts.Cart(ctx, tok))(t)
	wantLines(t, c, cart.Line{ItemID: 8, Qty: 4})
}

// placeOrderOnly runs the checkout transaction alone, without the
// pre-check that a racing archive, ban or sale can pass.
func placeOrderOnly(ctx context.Context, s shop, req CheckoutRequest, lines []cart.Line) (Order, error) {
	o, _, err := s.placeOrder(ctx, req, OrderPending, lines, "")
	return o, err
}

func setLine(t *testing.T, s shop, owner cart.Owner, item, qty int64) {
	t.Helper()
	if _, err := s.carts.SetCartLine(t.Context(), owner, item, qty); err != nil {
		t.Fatal(err)
	}
}

func wantLines(t *testing.T, c cart.Cart, want ...cart.Line) {
	t.Helper()
	if len(c.Lines) != len(want) {
		t.Fatalf("cart %+v, want %+v", c.Lines, want)
	}
	for i := range want {
		if c.Lines[i] != want[i] {
			t.Fatalf("cart %+v, want %+v", c.Lines, want)
		}
	}
}
