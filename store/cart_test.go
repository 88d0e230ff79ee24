package store_test

import (
	"context"
	"errors"
	"testing"

	"storefront/store"
	"storefront/store/storetest"
)

// shopper creates an account and a signed-in session for it.
func shopper(t *testing.T, st *store.Store, name string) (string, int64) {
	t.Helper()
	ctx := t.Context()
	u, err := st.CreateUser(ctx, name, "password for "+name)
	if err != nil {
		t.Fatalf("create user: %v", err)
	}
	token := "token-" + name
	if err := st.CreateSession(ctx, token, u.ID); err != nil {
		t.Fatalf("create session: %v", err)
	}
	return token, u.ID
}

func setStock(t *testing.T, st *store.Store, id, stock int64) {
	t.Helper()
	if _, err := st.DB().ExecContext(t.Context(), `UPDATE items SET stock = $1 WHERE id = $2`, stock, id); err != nil {
		t.Fatal(err)
	}
}

func stockOf(t *testing.T, st *store.Store, id int64) int64 {
	t.Helper()
	var n int64
	if err := st.DB().QueryRowContext(t.Context(), `SELECT stock FROM items WHERE id = $1`, id).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func setLine(t *testing.T, st *store.Store, token string, item, qty int64) store.Cart {
	t.Helper()
	c, err := st.SetCartLine(t.Context(), token, item, qty)
	if err != nil {
		t.Fatalf("set cart line %d=%d: %v", item, qty, err)
	}
	return c
}

func wantCart(t *testing.T, got store.Cart, want ...store.CartLine) {
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

func TestCartSetReplaceRemove(t *testing.T) {
	st := storetest.Store(t)
	ctx := t.Context()
	tok, _ := shopper(t, st, "alice")

	wantCart(t, setLine(t, st, tok, 7, 2), store.CartLine{ItemID: 7, Qty: 2})
	wantCart(t, setLine(t, st, tok, 7, 5), store.CartLine{ItemID: 7, Qty: 5}) // sets, not adds
	wantCart(t, setLine(t, st, tok, 3, 1), store.CartLine{ItemID: 3, Qty: 1}, store.CartLine{ItemID: 7, Qty: 5})

	// The header count comes from the session read: the total quantity.
	state, err := st.LoadSession(ctx, tok, 0)
	if err != nil {
		t.Fatal(err)
	}
	if state.CartCount != 6 {
		t.Errorf("session cart count %d, want 6 (total quantity)", state.CartCount)
	}
	if n, err := st.CartCount(ctx, tok); err != nil || n != 6 {
		t.Errorf("CartCount = %d, %v; want 6", n, err)
	}

	wantCart(t, setLine(t, st, tok, 7, 0), store.CartLine{ItemID: 3, Qty: 1}) // 0 removes
	wantCart(t, setLine(t, st, tok, 3, -4))                                   // negative removes
	wantCart(t, setLine(t, st, tok, 9, 0))                                    // removing what is not there
	if n, _ := st.Redis().Exists(ctx, "cart:"+tok).Result(); n != 0 {
		t.Error("an empty cart leaves no key behind")
	}
}

func TestCartsArePerSession(t *testing.T) {
	st := storetest.Store(t)
	a, _ := shopper(t, st, "alice")
	b, _ := shopper(t, st, "bob")
	setLine(t, st, a, 1, 2)
	setLine(t, st, b, 2, 3)
	ca, _ := st.Cart(t.Context(), a)
	cb, _ := st.Cart(t.Context(), b)
	wantCart(t, ca, store.CartLine{ItemID: 1, Qty: 2})
	wantCart(t, cb, store.CartLine{ItemID: 2, Qty: 3})
}

func TestCartIsCappedInLines(t *testing.T) {
	st := storetest.Store(t)
	tok, _ := shopper(t, st, "alice")
	for id := int64(1); id <= store.MaxCartLines; id++ {
		setLine(t, st, tok, id, 1)
	}
	if _, err := st.SetCartLine(t.Context(), tok, store.MaxCartLines+1, 1); !errors.Is(err, store.ErrCartFull) {
		t.Fatalf("line %d: err %v, want ErrCartFull", store.MaxCartLines+1, err)
	}
	c := setLine(t, st, tok, 5, 3) // changing a line already there is fine
	if len(c.Lines) != store.MaxCartLines || c.Qty(5) != 3 {
		t.Errorf("cart has %d lines, item 5 x%d", len(c.Lines), c.Qty(5))
	}
}

func TestCartEndsWithItsSession(t *testing.T) {
	st := storetest.Store(t)
	ctx := t.Context()
	tok, _ := shopper(t, st, "alice")
	setLine(t, st, tok, 4, 2)
	// EndSession runs the same deletion as the cleanup worker's eviction
	// (addDeleteSession), which removes cart:<token> with the session.
	if err := st.EndSession(ctx, tok); err != nil {
		t.Fatal(err)
	}
	if n, _ := st.Redis().Exists(ctx, "cart:"+tok).Result(); n != 0 {
		t.Error("the cart outlived its session")
	}
}

func TestSignInKeepsTheCart(t *testing.T) {
	st := storetest.Store(t)
	ctx := t.Context()
	guest := "guest-token"
	if err := st.CreateSession(ctx, guest, 0); err != nil {
		t.Fatal(err)
	}
	setLine(t, st, guest, 11, 2)
	setLine(t, st, guest, 12, 1)
	u, err := st.CreateUser(ctx, "carol", "a good password")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.SignIn(ctx, guest, "new-token", u.ID); err != nil {
		t.Fatal(err)
	}
	c, err := st.Cart(ctx, "new-token")
	if err != nil {
		t.Fatal(err)
	}
	wantCart(t, c, store.CartLine{ItemID: 11, Qty: 2}, store.CartLine{ItemID: 12, Qty: 1})
	if old, _ := st.Cart(ctx, guest); len(old.Lines) != 0 {
		t.Error("the old token still has a cart")
	}
	if s, _ := st.LoadSession(ctx, "new-token", 0); s.CartCount != 3 || s.UserID != u.ID {
		t.Errorf("new session %+v", s)
	}
}

func TestCatalogRows(t *testing.T) {
	st := storetest.Store(t)
	rows, err := st.CatalogRows(context.Background(), []int64{1, 2, 999999})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].Name == "" || rows[2].PriceCents <= 0 {
		t.Errorf("rows %+v", rows)
	}
}
