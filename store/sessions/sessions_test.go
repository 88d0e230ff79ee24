package sessions_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

func TestUpdateTokenKeepsNewestViews(t *testing.T) {
	st := limitStore(t, 100)
	ctx, rdb := t.Context(), st.Redis()
	if err := st.Sessions.NewSessionView(ctx, "tok", 1); err != nil {
		t.Fatal(err)
	}
	for id := int64(2); id <= 26; id++ {
		if err := st.Sessions.UpdateToken(ctx, "tok", true, id); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Sessions.UpdateToken(ctx, "tok", true, 20); err != nil { // seen again
		t.Fatal(err)
	}
	ids, err := st.Sessions.RecentlyViewed(ctx, "tok")
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{20, 26, 25, 24, 23, 22, 21, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2}
	if !slices.Equal(ids, want) {
		t.Fatalf("recently viewed %v, want %v", ids, want)
	}
	// viewed: counts every view: item 20 twice, item 1 once although it
	// dropped out of the session's list.
	if s := rdb.ZScore(ctx, keys.ViewRanking, "20").Val(); s != -2 {
		t.Errorf("viewed: score of 20 = %v, want -2", s)
	}
	if s := rdb.ZScore(ctx, keys.ViewRanking, "1").Val(); s != -1 {
		t.Errorf("viewed: score of 1 = %v, want -1", s)
	}
}

func TestUnknownTokenCreatesNothing(t *testing.T) {
	st := wiringtest.New(t)
	ctx, rdb := t.Context(), st.Redis()
	state, err := st.Sessions.LoadSession(ctx, "never-issued", 0)
	if err != nil || state.Known {
		t.Fatalf("LoadSession: %+v, %v", state, err)
	}
	state, ids, err := st.Sessions.SessionWithRecent(ctx, "never-issued", 0)
	if err != nil || state.Known || len(ids) != 0 {
		t.Fatalf("SessionWithRecent: %+v %v, %v", state, ids, err)
	}
	sk := keys.OfSession("never-issued")
	for _, k := range []string{keys.Recent, keys.Login, sk.Viewed, sk.Cart} {
		if n := storetest.Must(rdb.Exists(ctx, k).Result())(t); n != 0 {
			t.Errorf("%s was created", k)
		}
	}
}

func TestSignInCarriesTheSessionOver(t *testing.T) {
	st := limitStore(t, 100)
	ctx, rdb := t.Context(), st.Redis()
	guest(t, st, "old")
	if err := st.Sessions.UpdateToken(ctx, "old", true, 8); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Sessions.SignIn(ctx, "old", "new", 5); err != nil {
		t.Fatal(err)
	}
	if alive(t, rdb, "old", false) {
		t.Error("the old token still works")
	}
	state, ids, err := st.Sessions.SessionWithRecent(ctx, "new", 5)
	if err != nil || !state.Known || state.UserID != 5 || state.CartCount != 1 || !slices.Equal(ids, []int64{8, 7}) {
		t.Fatalf("new session %+v %v, %v", state, ids, err)
	}
	if !alive(t, rdb, "new", true) { // also: no longer among the guests
		t.Error("the new session is incomplete")
	}

	// Someone else signing in on this browser starts afresh: user 5's cart
	// and views stay out of user 6's account, and user 5's session ends.
	if _, err := st.Sessions.SignIn(ctx, "new", "other", 6); err != nil {
		t.Fatal(err)
	}
	state, ids, _ = st.Sessions.SessionWithRecent(ctx, "other", 6)
	if state.UserID != 6 || state.CartCount != 0 || len(ids) != 0 {
		t.Errorf("user 6 got user 5's session: %+v %v", state, ids)
	}
	if alive(t, rdb, "new", true) {
		t.Error("user 5's session survived another user's sign-in")
	}
}

func TestEndSession(t *testing.T) {
	st := limitStore(t, 100)
	signedInSession(t, st, "tok", 3)
	if err := st.Sessions.EndSession(t.Context(), "tok"); err != nil {
		t.Fatal(err)
	}
	if alive(t, st.Redis(), "tok", true) {
		t.Error("session survived sign-out")
	}
}

func TestPasswords(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	long := strings.Repeat("é", 128) // 256 bytes: far past bcrypt's 72
	u, err := st.Sessions.CreateUser(ctx, "Long_Pass", long)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.Sessions.Authenticate(ctx, "long_pass", long); err != nil || got.ID != u.ID {
		t.Errorf("sign in with a 128-character password: %+v, %v", got, err)
	}
	// Passwords that share their first 72 bytes are still different.
	if _, err := st.Sessions.Authenticate(ctx, "long_pass", strings.Repeat("é", 127)+"e"); !errors.Is(err, sessions.ErrBadCredentials) {
		t.Errorf("a different long password: %v", err)
	}
	if _, err := st.Sessions.CreateUser(ctx, "LONG_PASS", "whatever123"); !errors.Is(err, platform.ErrConflict) {
		t.Errorf("a name differing only in case: %v, want ErrConflict", err)
	}
	if _, err := st.Sessions.Authenticate(ctx, "nobody", long); !errors.Is(err, sessions.ErrBadCredentials) {
		t.Errorf("unknown user: %v", err)
	}
}

func TestSessionTouchKeepsItsPlaceInRecent(t *testing.T) {
	st := limitStore(t, 100)
	ctx, rdb := t.Context(), st.Redis()
	guest(t, st, "g")
	signedInSession(t, st, "s", 4)
	score := func(tok string) float64 {
		return rdb.ZScore(ctx, keys.Recent, keys.OfSession(tok).ID).Val()
	}
	s0 := score("s")
	// A signed-in session seen without its user cookie is touched as a
	// guest: it must not move among the guests (the cleanup would evict
	// it early), nor back in time.
	if err := st.Sessions.UpdateToken(ctx, "s", true, 3); err != nil {
		t.Fatal(err)
	}
	if s := score("s"); s != s0 || s < keys.SignedInScore {
		t.Errorf("signed-in score %v -> %v after a guest touch", s0, s)
	}
	if !alive(t, rdb, "s", true) || !alive(t, rdb, "g", false) {
		t.Fatal("a session went missing")
	}
	// A touch that arrives late (written behind, an older clock) never
	// moves a session back.
	g0 := score("g")
	st.SetClock(func() time.Time { return time.Unix(1_600_000_000, 0) })
	if err := st.Sessions.UpdateToken(ctx, "g", true, 0); err != nil {
		t.Fatal(err)
	}
	if g := score("g"); g != g0 {
		t.Errorf("guest score %v -> %v after an older touch", g0, g)
	}
}

func TestRedisNeverHoldsTheCookieToken(t *testing.T) {
	st := limitStore(t, 100)
	ctx, rdb := t.Context(), st.Redis()
	tokens := []string{"guest-token-0123456789", "shopper-token-0123456789"}
	guest(t, st, tokens[0])
	signedInSession(t, st, tokens[1], 8)
	if _, err := st.Sessions.SignIn(ctx, tokens[0], "rotated-token-0123456789", 8); err != nil {
		t.Fatal(err)
	}
	tokens = append(tokens, "rotated-token-0123456789")
	found, err := scanAll(ctx, rdb, "*")
	if err != nil {
		t.Fatal(err)
	}
	members := append(rdb.ZRange(ctx, keys.Recent, 0, -1).Val(), rdb.HKeys(ctx, keys.Login).Val()...)
	for _, tok := range tokens {
		for _, s := range append(found, members...) {
			if strings.Contains(s, tok) {
				t.Errorf("Redis names a session by its cookie token: %q", s)
			}
		}
	}
	if len(members) != 4 { // two sessions: recent: and login: each
		t.Errorf("recent: and login: hold %v, want the two sessions' ids twice", members)
	}
}

func TestLoadSessionChecksTheClaimAgainstLogin(t *testing.T) {
	st := limitStore(t, 100)
	ctx := t.Context()
	signedInSession(t, st, "s", 4)
	guest(t, st, "g")
	if state, err := st.Sessions.LoadSession(ctx, "s", 4); err != nil || !state.Known || state.UserID != 4 || state.CartCount != 2 {
		t.Errorf("the shopper's own claim: %+v, %v", state, err)
	}
	if state := storetest.Must(st.Sessions.LoadSession(ctx, "s", 5))(t); state.UserID == 5 {
		t.Errorf("a claim of another user was taken: %+v", state)
	}
	if state := storetest.Must(st.Sessions.LoadSession(ctx, "s", 0))(t); !state.Known || state.UserID != 0 || state.CartCount != 0 {
		t.Errorf("the shopper's session without a claim: %+v (known, anonymous, not shown the account's cart)", state)
	}
	if state := storetest.Must(st.Sessions.LoadSession(ctx, "g", 4))(t); state.UserID != 0 {
		t.Errorf("a guest session with a claim is signed in: %+v", state)
	}
	if state := storetest.Must(st.Sessions.LoadSession(ctx, "g", 0))(t); !state.Known || state.UserID != 0 || state.CartCount != 1 {
		t.Errorf("the guest: %+v", state)
	}
	if err := st.Sessions.EndSession(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	if state := storetest.Must(st.Sessions.LoadSession(ctx, "s", 4))(t); state.Known || state.UserID != 0 {
		t.Errorf("a signed-out session with its old claim: %+v", state)
	}
}
