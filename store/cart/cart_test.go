package cart_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

func TestCartSetReplaceRemove(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	tok := wiringtest.GuestCart(t, st, "guest-token")

	wiringtest.WantCart(t, wiringtest.SetLine(t, st, tok, 7, 2), cart.Line{ItemID: 7, Qty: 2})
	wiringtest.WantCart(t, wiringtest.SetLine(t, st, tok, 7, 5), cart.Line{ItemID: 7, Qty: 5}) // sets, not adds
	wiringtest.WantCart(t, wiringtest.SetLine(t, st, tok, 3, 1), cart.Line{ItemID: 3, Qty: 1}, cart.Line{ItemID: 7, Qty: 5})

	// The header count comes from the session read: the total quantity.
	state, err := st.Sessions.LoadSession(ctx, tok.Token, 0)
	if err != nil {
		t.Fatal(err)
	}
	if state.CartCount != 6 {
		t.Errorf("session cart count %d, want 6 (total quantity)", state.CartCount)
	}
	if n, err := st.Cart.CartCount(ctx, tok); err != nil || n != 6 {
		t.Errorf("CartCount = %d, %v; want 6", n, err)
	}

	wiringtest.WantCart(t, wiringtest.SetLine(t, st, tok, 7, 0), cart.Line{ItemID: 3, Qty: 1}) // 0 removes
	wiringtest.WantCart(t, wiringtest.SetLine(t, st, tok, 3, -4))                              // negative removes
	wiringtest.WantCart(t, wiringtest.SetLine(t, st, tok, 9, 0))                               // removing what is not there
	if n := storetest.Must(st.Redis().Exists(ctx, keys.OfSession(tok.Token).Cart).Result())(t); n != 0 {
		t.Error("an empty cart leaves no key behind")
	}
}

func TestCartsArePerSession(t *testing.T) {
	st := wiringtest.New(t)
	a, _ := wiringtest.Shopper(t, st, "alice")
	b, _ := wiringtest.Shopper(t, st, "bob")
	wiringtest.SetLine(t, st, a, 1, 2)
	wiringtest.SetLine(t, st, b, 2, 3)
	ca := storetest.Must(st.Cart.Cart(t.Context(), a))(t)
	cb := storetest.Must(st.Cart.Cart(t.Context(), b))(t)
	wiringtest.WantCart(t, ca, cart.Line{ItemID: 1, Qty: 2})
	wiringtest.WantCart(t, cb, cart.Line{ItemID: 2, Qty: 3})
}

func TestCartIsCappedInLines(t *testing.T) {
	st := wiringtest.New(t)
	tok, _ := wiringtest.Shopper(t, st, "alice")
	for id := int64(1); id <= cart.MaxLines; id++ {
		wiringtest.SetLine(t, st, tok, id, 1)
	}
	if _, err := st.Cart.SetCartLine(t.Context(), tok, cart.MaxLines+1, 1); !errors.Is(err, cart.ErrFull) {
		t.Fatalf("line %d: err %v, want ErrCartFull", cart.MaxLines+1, err)
	}
	c := wiringtest.SetLine(t, st, tok, 5, 3) // changing a line already there is fine
	if len(c.Lines) != cart.MaxLines || c.Qty(5) != 3 {
		t.Errorf("cart has %d lines, item 5 x%d", len(c.Lines), c.Qty(5))
	}
}

func TestGuestCartEndsWithItsSession(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	tok := wiringtest.GuestCart(t, st, "guest-token")
	wiringtest.SetLine(t, st, tok, 4, 2)
	// EndSession runs the same deletion as the cleanup worker's eviction
	// (addDeleteSession), which removes cart:<token> with the session.
	if err := st.Sessions.EndSession(ctx, tok.Token); err != nil {
		t.Fatal(err)
	}
	if n := storetest.Must(st.Redis().Exists(ctx, keys.OfSession(tok.Token).Cart).Result())(t); n != 0 {
		t.Error("the guest cart outlived its session")
	}
}

// An account's cart is the account's: every session of the account sees
// it, the header count of each session shows it, and it outlives sign-out
// with its idle lifetime renewed on use.
func TestAccountCartOutlivesSessions(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.AccountCartTTL = time.Hour })
	ctx := t.Context()
	phone, uid := wiringtest.Shopper(t, st, "alice")
	laptop := cart.Owner{UserID: uid, Token: "token-laptop"}
	if err := st.Sessions.CreateSession(ctx, laptop.Token, uid); err != nil {
		t.Fatal(err)
	}
	wiringtest.SetLine(t, st, phone, 4, 2)
	c, err := st.Cart.Cart(ctx, laptop)
	if err != nil {
		t.Fatal(err)
	}
	wiringtest.WantCart(t, c, cart.Line{ItemID: 4, Qty: 2})
	if s := storetest.Must(st.Sessions.LoadSession(ctx, laptop.Token, uid))(t); s.CartCount != 2 || s.UserID != uid {
		t.Errorf("laptop session %+v, want count 2", s)
	}
	// A cookie that claims another user reads no account's cart.
	if s := storetest.Must(st.Sessions.LoadSession(ctx, laptop.Token, uid+1))(t); s.CartCount != 0 {
		t.Errorf("a false claim saw count %d", s.CartCount)
	}
	key := keys.AccountCart(uid)
	if ttl := st.Redis().PTTL(ctx, key).Val(); ttl <= 0 || ttl > time.Hour {
		t.Errorf("account cart TTL %v, want (0, 1h]", ttl)
	}
	for _, tok := range []string{phone.Token, laptop.Token} {
		if err := st.Sessions.EndSession(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	c = storetest.Must(st.Cart.Cart(ctx, cart.Owner{UserID: uid, Token: "token-next-week"}))(t)
	wiringtest.WantCart(t, c, cart.Line{ItemID: 4, Qty: 2})
}

// At sign-in the guest cart merges into the account's: the guest's
// quantity wins for an item in both, the account's other lines stay, the
// guest cart is gone with the old token.
func TestSignInMergesTheGuestCart(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	acct, uid := wiringtest.Shopper(t, st, "carol")
	wiringtest.SetLine(t, st, acct, 11, 5)
	wiringtest.SetLine(t, st, acct, 13, 1)
	g := wiringtest.GuestCart(t, st, "guest-token")
	wiringtest.SetLine(t, st, g, 11, 2)
	wiringtest.SetLine(t, st, g, 12, 1)
	dropped, err := st.Sessions.SignIn(ctx, g.Token, "new-token", uid)
	if err != nil || dropped != 0 {
		t.Fatalf("sign in: %d dropped, %v", dropped, err)
	}
	c, err := st.Cart.Cart(ctx, cart.Owner{UserID: uid, Token: "new-token"})
	if err != nil {
		t.Fatal(err)
	}
	wiringtest.WantCart(t, c, cart.Line{ItemID: 11, Qty: 2}, cart.Line{ItemID: 12, Qty: 1}, cart.Line{ItemID: 13, Qty: 1})
	if n := storetest.Must(st.Redis().Exists(ctx, keys.OfSession(g.Token).Cart).Result())(t); n != 0 {
		t.Error("the old token still has a cart")
	}
	if s := storetest.Must(st.Sessions.LoadSession(ctx, "new-token", uid))(t); s.CartCount != 4 || s.UserID != uid {
		t.Errorf("new session %+v", s)
	}
}

// The merge keeps the line cap: lines that do not fit are counted.
func TestSignInMergeKeepsTheLineCap(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	acct, uid := wiringtest.Shopper(t, st, "dan")
	for id := int64(1); id < cart.MaxLines; id++ {
		wiringtest.SetLine(t, st, acct, id, 1)
	}
	g := wiringtest.GuestCart(t, st, "guest-token")
	wiringtest.SetLine(t, st, g, 5, 7)    // already there: replaced
	wiringtest.SetLine(t, st, g, 1001, 1) // fits: the last free line
	wiringtest.SetLine(t, st, g, 1002, 1) // does not fit
	dropped, err := st.Sessions.SignIn(ctx, g.Token, "new-token", uid)
	if err != nil || dropped != 1 {
		t.Fatalf("sign in: %d dropped (want 1), %v", dropped, err)
	}
	c := storetest.Must(st.Cart.Cart(ctx, acct))(t)
	if len(c.Lines) != cart.MaxLines || c.Qty(5) != 7 || c.Qty(1001) != 1 || c.Qty(1002) != 0 {
		t.Errorf("merged cart: %d lines, 5 x%d, 1001 x%d, 1002 x%d", len(c.Lines), c.Qty(5), c.Qty(1001), c.Qty(1002))
	}
}

// Two devices of one account write to its cart while a guest cart merges
// in: every write lands, none is lost to the merge.
func TestMergeIsAtomicWithOtherDevices(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	acct, uid := wiringtest.Shopper(t, st, "erin")
	g := wiringtest.GuestCart(t, st, "guest-token")
	for id := int64(1); id <= 20; id++ {
		wiringtest.SetLine(t, st, g, id, 2)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for id := int64(21); id <= 60; id++ {
			if _, err := st.Cart.SetCartLine(ctx, acct, id, 1); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	if _, err := st.Sessions.SignIn(ctx, g.Token, "new-token", uid); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	c := storetest.Must(st.Cart.Cart(ctx, acct))(t)
	if len(c.Lines) != 60 || c.Count != 20*2+40 {
		t.Errorf("cart has %d lines, count %d; want 60 lines, count 80", len(c.Lines), c.Count)
	}
}

// TestSignInMergeIntoAFullCart: the account's cart is full (MaxLines
// lines). A guest line for an item already there replaces its quantity
// (it takes no new line), whatever its place among the guest's lines; a
// guest line for a new item does not fit and is counted as dropped.
func TestSignInMergeIntoAFullCart(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	acct, uid := wiringtest.Shopper(t, st, "erin")
	for id := int64(1); id <= cart.MaxLines; id++ {
		wiringtest.SetLine(t, st, acct, id, 1)
	}
	g := wiringtest.GuestCart(t, st, "guest-token")
	wiringtest.SetLine(t, st, g, 3, 4)             // already there: replaced, before the new line
	wiringtest.SetLine(t, st, g, 1001, 1)          // new: the cart is full, dropped
	wiringtest.SetLine(t, st, g, 2000, 1)          // new: dropped too
	wiringtest.SetLine(t, st, g, cart.MaxLines, 6) // already there: replaced, after the new lines
	dropped, err := st.Sessions.SignIn(ctx, g.Token, "new-token", uid)
	if err != nil || dropped != 2 {
		t.Fatalf("sign in: %d dropped (want 2), %v", dropped, err)
	}
	c, err := st.Cart.Cart(ctx, acct)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Lines) != cart.MaxLines || c.Qty(3) != 4 || c.Qty(cart.MaxLines) != 6 || c.Qty(1001) != 0 || c.Qty(2000) != 0 || c.Qty(1) != 1 {
		t.Errorf("merged cart: %d lines, 3 x%d, %d x%d, 1001 x%d, 2000 x%d, 1 x%d", len(c.Lines), c.Qty(3), cart.MaxLines, c.Qty(cart.MaxLines), c.Qty(1001), c.Qty(2000), c.Qty(1))
	}
	if c.Count != cart.MaxLines-2+4+6 {
		t.Errorf("merged count %d, want %d", c.Count, cart.MaxLines-2+4+6)
	}
}
