package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

const (
	firefoxLinux = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"
	safariPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1"
)

func homeAddress(name, postcode string) url.Values {
	return url.Values{"name": {name}, "line1": {"1 Main Street"}, "city": {"Springfield"}, "postcode": {postcode}, "country": {"US"},
		"region": {"IL"}}
}

// The account page lists recent orders, the address book and the devices
// signed in; addresses are added, checked, made default, edited and
// deleted, and checkout fills in the default or the one chosen; nobody
// reaches another account's addresses.
func TestAccountPageAddressBook(t *testing.T) {
	a := newApp(t, nil, nil)
	if res := a.client().Get("/account"); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/login") {
		t.Fatalf("anonymous /account: %d to %q", res.Status, res.Header.Get("Location"))
	}
	pat := a.client()
	pat.Register("pat")
	page := pat.Get("/account")
	if page.Status != http.StatusOK || len(testids(page.Body, "account-page", "")) != 1 || len(testids(page.Body, "address-row", "")) != 0 {
		t.Fatalf("account page: %d", page.Status)
	}
	if got := testids(page.Body, "account-page-email", "data-verified"); len(got) != 1 || got[0] != "false" || !strings.Contains(page.Body, "pat@example.com") {
		t.Errorf("the account page's email: %v", got)
	}
	if len(testids(pat.Get("/").Body, "account-link", "")) != 1 {
		t.Error("the header has no link to the account page")
	}

	// Refused: nothing saved, the form comes back as typed with messages.
	for _, bad := range []url.Values{homeAddress("", "12345"), homeAddress("Pat", "!!"), homeAddress("Pat\x01", "12345"),
		func() url.Values { v := homeAddress("Pat", "12345"); v.Set("country", "XX"); return v }()} {
		res := pat.Post("/account/addresses", bad)
		if res.Status != http.StatusUnprocessableEntity || len(testids(res.Body, "field-error", "")) == 0 {
			t.Errorf("bad address %v: %d", bad, res.Status)
		}
	}
	if n := len(testids(pat.Get("/account").Body, "address-row", "")); n != 0 {
		t.Fatalf("refused addresses saved %d rows", n)
	}

	if res := pat.Post("/account/addresses", homeAddress("Pat Home", "11111")); res.Status != http.StatusSeeOther {
		t.Fatalf("add: %d", res.Status)
	}
	work := homeAddress("Pat Work", "22222")
	work.Set("default", "1")
	if res := pat.Post("/account/addresses", work); res.Status != http.StatusSeeOther {
		t.Fatalf("add default: %d", res.Status)
	}
	page = pat.Get("/account")
	ids := testids(page.Body, "address-row", "data-address-id")
	defaults := testids(page.Body, "address-row", "data-default")
	if len(ids) != 2 || strings.Join(defaults, ",") != "true,false" || !strings.Contains(page.Body, "Pat Work") {
		t.Fatalf("rows %v defaults %v", ids, defaults)
	}
	workID, homeID := ids[0], ids[1]

	// Checkout fills in the default and offers both; ?address= picks one.
	pat.setQty("7", "1")
	co := pat.Get("/checkout")
	mustContain(t, co.Body, `value="Pat Work"`, `value="22222"`)
	if got := testids(co.Body, "saved-address", "data-address-id"); len(got) != 2 {
		t.Fatalf("saved addresses offered %v", got)
	}
	mustContain(t, pat.Get("/checkout?address="+homeID).Body, `value="Pat Home"`, `value="11111"`)
	if res := pat.Get("/checkout?address=999999"); res.Status != http.StatusNotFound {
		t.Errorf("unknown saved address: %d", res.Status)
	}

	// Another account cannot see, use or change pat's addresses.
	bob := a.client()
	bob.Register("bob")
	for _, path := range []string{"/account/addresses/" + homeID + "/delete", "/account/addresses/" + homeID + "/default"} {
		if res := bob.Post(path, nil); res.Status != http.StatusNotFound {
			t.Errorf("bob POST %s: %d", path, res.Status)
		}
	}
	if res := bob.Post("/account/addresses/"+homeID, homeAddress("Bob", "33333")); res.Status != http.StatusNotFound {
		t.Errorf("bob edits pat's address: %d", res.Status)
	}
	if res := bob.Get("/account/addresses/" + homeID); res.Status != http.StatusNotFound {
		t.Errorf("bob reads pat's address: %d", res.Status)
	}
	if res := bob.Get("/checkout?address=" + homeID); res.Status != http.StatusNotFound {
		t.Errorf("bob's checkout with pat's address: %d", res.Status)
	}
	page = pat.Get("/account")
	if strings.Contains(page.Body, "Bob") || len(testids(page.Body, "address-row", "")) != 2 {
		t.Fatal("another account changed pat's addresses")
	}

	// Edit (a bad edit changes nothing), make default, delete.
	if res := pat.Get("/account/addresses/" + homeID); res.Status != http.StatusOK || !strings.Contains(res.Body, `value="Pat Home"`) {
		t.Fatalf("edit form: %d", res.Status)
	}
	if res := pat.Post("/account/addresses/"+homeID, homeAddress("", "11111")); res.Status != http.StatusUnprocessableEntity {
		t.Errorf("bad edit: %d", res.Status)
	}
	if res := pat.Post("/account/addresses/"+homeID, homeAddress("Pat New Home", "44444")); res.Status != http.StatusSeeOther {
		t.Fatalf("edit: %d", res.Status)
	}
	if res := pat.Post("/account/addresses/"+homeID+"/default", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("make default: %d", res.Status)
	}
	mustContain(t, pat.Get("/checkout").Body, `value="Pat New Home"`, `value="44444"`)
	if res := pat.Post("/account/addresses/"+homeID+"/delete", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.Status)
	}
	page = pat.Get("/account")
	if ids := testids(page.Body, "address-row", "data-address-id"); len(ids) != 1 || ids[0] != workID ||
		testids(page.Body, "address-row", "data-default")[0] != "true" {
		t.Fatalf("after deleting the default: %v", ids)
	}

	// The order placed shows among the recent orders.
	if res := pat.checkout(nil); res.Status != http.StatusSeeOther {
		t.Fatalf("checkout: %d", res.Status)
	}
	if got := testids(pat.Get("/account").Body, "order", "data-order-id"); len(got) != 1 {
		t.Errorf("recent orders %v", got)
	}
}

// The account lists its sessions with their devices; ending one signs
// that device out at once, the current one and other accounts' sessions
// cannot be ended from here, and "sign out everywhere else" keeps this one.
func TestAccountSessions(t *testing.T) {
	a := newApp(t, nil, nil)
	laptop, phone, tablet := a.client(), a.client(), a.client()
	laptop.Register("sam")
	password := url.Values{"username": {"sam"}, "password": {"correct horse battery"}}
	for _, c := range []struct {
		cl *client
		ua string
	}{{laptop, firefoxLinux}, {phone, safariPhone}, {tablet, ""}} {
		if res := c.cl.Post("/login", password, "User-Agent", c.ua); res.Status != http.StatusSeeOther {
			t.Fatalf("sign in: %d", res.Status)
		}
	}
	page := laptop.Get("/account")
	rows := testids(page.Body, "account-session", "data-session")
	current := testids(page.Body, "account-session", "data-current")
	if len(rows) != 3 || strings.Count(strings.Join(current, ","), "true") != 1 {
		t.Fatalf("sessions %v current %v", rows, current)
	}
	mustContain(t, page.Body, "Firefox on Linux", "Safari on iPhone", "(this device)")
	var mine, phones string
	for i, sid := range rows {
		if current[i] == "true" {
			mine = sid
		} else if phones == "" {
			phones = sid
		}
	}

	// Another account cannot end sam's sessions; sam cannot end the
	// current one from here (Sign out does that).
	eve := a.client()
	eve.Register("eve")
	if res := eve.Post("/account/sessions/"+phones+"/end", nil); res.Status != http.StatusNotFound {
		t.Errorf("eve ends sam's session: %d", res.Status)
	}
	if res := laptop.Post("/account/sessions/"+mine+"/end", nil); res.Status != http.StatusNotFound {
		t.Errorf("ending the current session here: %d", res.Status)
	}
	for _, c := range []*client{laptop, phone, tablet} {
		if signedInAs(c.home().Body) != "sam" {
			t.Fatal("a refused end signed a device out")
		}
	}

	// End one session: only that device is signed out, on its next page.
	page = laptop.Get("/account")
	var ended string
	for i, sid := range testids(page.Body, "account-session", "data-session") {
		if testids(page.Body, "account-session", "data-current")[i] != "true" && ended == "" {
			ended = sid
		}
	}
	if res := laptop.Post("/account/sessions/"+ended+"/end", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("end: %d", res.Status)
	}
	still := 0
	for _, c := range []*client{phone, tablet} {
		if signedInAs(c.home().Body) == "sam" {
			still++
		}
	}
	if still != 1 || signedInAs(laptop.home().Body) != "sam" {
		t.Fatalf("after ending one session: %d of 2 others still signed in", still)
	}
	if res := laptop.Post("/account/sessions/"+ended+"/end", nil); res.Status != http.StatusNotFound {
		t.Errorf("ending it twice: %d", res.Status)
	}

	// Everywhere else: this one stays, eve is untouched.
	if res := laptop.Post("/account/sessions/end-others", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("end others: %d", res.Status)
	}
	for _, c := range []*client{phone, tablet} {
		if signedInAs(c.home().Body) != "" {
			t.Error("a device is still signed in after sign out everywhere else")
		}
	}
	if signedInAs(laptop.home().Body) != "sam" || signedInAs(eve.home().Body) != "eve" {
		t.Error("sign out everywhere else ended this session or another account's")
	}
	if rows := testids(laptop.Get("/account").Body, "account-session", ""); len(rows) != 1 {
		t.Errorf("%d sessions listed after signing out everywhere else", len(rows))
	}
}

// TestAddressBookRegionAndPhone: a saved address needs a state of its
// country's list where the country has regions (422 and nothing saved
// otherwise), keeps an optional phone, shows both, and checkout fills
// them in with the US states to choose from.
func TestAddressBookRegionAndPhone(t *testing.T) {
	a := newApp(t, nil, nil)
	a.setStock(7, 5)
	kim := a.client()
	kim.Register("kim")
	mustContain(t, kim.MustGet("/account", http.StatusOK).Body, `<optgroup label="Canada">`, `name="phone"`)
	for name, edit := range map[string]func(url.Values){
		"no state":       func(v url.Values) { v.Del("region") },
		"a Canadian one": func(v url.Values) { v.Set("region", "QC") },
		"a bad phone":    func(v url.Values) { v.Set("phone", "ext. 12") },
		"NSW in Canada":  func(v url.Values) { v.Set("country", "CA"); v.Set("region", "NSW") },
	} {
		v := homeAddress("Kim Home", "62701")
		edit(v)
		if res := kim.Post("/account/addresses", v); res.Status != http.StatusUnprocessableEntity || len(testids(res.Body, "field-error", "")) == 0 {
			t.Errorf("%s: %d, want 422 with the field's message", name, res.Status)
		}
	}
	if n := len(testids(kim.Get("/account").Body, "address-row", "")); n != 0 {
		t.Fatalf("refused addresses saved %d rows", n)
	}
	v := homeAddress("Kim Home", "62701")
	v.Set("phone", "217-555-0100")
	kim.MustPost("/account/addresses", v, http.StatusSeeOther)
	mustContain(t, kim.MustGet("/account", http.StatusOK).Body, "Springfield, IL 62701", "Phone: 217-555-0100")
	kim.setQty("7", "1")
	page := kim.MustGet("/checkout", http.StatusOK).Body
	mustContain(t, page, `<option value="IL" selected>Illinois</option>`, `value="217-555-0100"`, `data-zone="United States"`)
}
