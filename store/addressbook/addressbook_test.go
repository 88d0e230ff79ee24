package addressbook_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"storefront/store/addressbook"
	"storefront/store/orders"
	"storefront/store/platform"
	"storefront/wiring/wiringtest"
)

func home(name string) orders.Address {
	return orders.Address{Name: name, Line1: "1 Main St", City: "Springfield", Region: "IL", Postcode: "12345", Country: "US"}
}

// The first address is the default; a later one made default takes its
// place; deleting the default promotes the oldest left; another account
// can neither read nor change any of them.
func TestAddressBookDefaultsAndOwners(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	book := st.Addresses
	ann, err := st.Sessions.CreateUser(ctx, "ann", "a good password")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := st.Sessions.CreateUser(ctx, "bob", "a good password")
	if err != nil {
		t.Fatal(err)
	}
	first, err := book.Add(ctx, ann.ID, home("Ann Home"), false)
	if err != nil || !first.Default {
		t.Fatalf("first address %+v %v, want the default", first, err)
	}
	work, err := book.Add(ctx, ann.ID, home("Ann Work"), true)
	if err != nil || !work.Default {
		t.Fatalf("work %+v %v", work, err)
	}
	third, err := book.Add(ctx, ann.ID, home("Ann Mum"), false)
	if err != nil || third.Default {
		t.Fatalf("third %+v %v", third, err)
	}
	list := func(userID int64) string {
		t.Helper()
		es, err := book.List(ctx, userID)
		if err != nil {
			t.Fatal(err)
		}
		s := ""
		for _, e := range es {
			s += fmt.Sprintf("%s:%v ", e.Address.Name, e.Default)
		}
		return s
	}
	if got, want := list(ann.ID), "Ann Work:true Ann Home:false Ann Mum:false "; got != want {
		t.Fatalf("list %q, want %q", got, want)
	}
	// Bob touches Ann's addresses: not found, nothing changed.
	for _, err := range []error{
		func() error { _, err := book.Get(ctx, bob.ID, work.ID); return err }(),
		book.Update(ctx, bob.ID, work.ID, home("Bob")),
		book.SetDefault(ctx, bob.ID, third.ID),
		book.Delete(ctx, bob.ID, work.ID),
	} {
		if !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("another account's address: %v, want not found", err)
		}
	}
	if got, want := list(ann.ID), "Ann Work:true Ann Home:false Ann Mum:false "; got != want {
		t.Fatalf("after another account's attempts %q, want %q", got, want)
	}
	if list(bob.ID) != "" {
		t.Fatalf("bob sees %q", list(bob.ID))
	}
	if err := book.Delete(ctx, ann.ID, work.ID); err != nil {
		t.Fatal(err)
	}
	if got, want := list(ann.ID), "Ann Home:true Ann Mum:false "; got != want {
		t.Fatalf("after deleting the default %q, want %q", got, want)
	}
	if err := book.SetDefault(ctx, ann.ID, third.ID); err != nil {
		t.Fatal(err)
	}
	changed := home("Ann Mum")
	changed.Line2 = "Flat 2"
	if err := book.Update(ctx, ann.ID, third.ID, changed); err != nil {
		t.Fatal(err)
	}
	d, ok, err := book.Default(ctx, ann.ID)
	if err != nil || !ok || d.ID != third.ID || d.Address != changed {
		t.Fatalf("default %+v %v %v", d, ok, err)
	}
}

// Many adds at once never pass the cap, and exactly one address is the
// default.
func TestAddressBookCapUnderConcurrency(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	book := st.Addresses
	u, err := st.Sessions.CreateUser(ctx, "many", "a good password")
	if err != nil {
		t.Fatal(err)
	}
	const tries = 3 * addressbook.MaxAddresses / 2
	var wg sync.WaitGroup
	errs := make(chan error, tries)
	for i := range tries {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := book.Add(ctx, u.ID, home(fmt.Sprint("n", i)), i%3 == 0)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	full := 0
	for err := range errs {
		switch {
		case errors.Is(err, addressbook.ErrFull):
			full++
		case err != nil:
			t.Fatal(err)
		}
	}
	es, err := book.List(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	defaults := 0
	for _, e := range es {
		if e.Default {
			defaults++
		}
	}
	if len(es) != addressbook.MaxAddresses || full != tries-addressbook.MaxAddresses || defaults != 1 {
		t.Fatalf("%d saved, %d refused as full, %d defaults; want %d, %d, 1", len(es), full, defaults, addressbook.MaxAddresses, tries-addressbook.MaxAddresses)
	}
}
