package sessions_test

import (
	"slices"
	"testing"

	"storefront/store/keys"
	"storefront/store/sessions"
	"storefront/store/storetest"
)

// Item ids of every varint width (one to five bytes, and one past 2^32)
// go through the script and back in order, each once, the newest kept.
func TestViewedItemsOfEveryWidth(t *testing.T) {
	st := limitStore(t, 100)
	ctx := t.Context()
	if err := st.Sessions.CreateSession(ctx, "wide", 0); err != nil {
		t.Fatal(err)
	}
	ids := []int64{1, 127, 128, 300, 16383, 16384, 2097151, 2097152, 1 << 28, 1<<32 + 5, 127}
	for _, id := range ids {
		if err := st.Sessions.UpdateToken(ctx, "wide", true, id); err != nil {
			t.Fatal(err)
		}
	}
	got, err := st.Sessions.RecentlyViewed(ctx, "wide")
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{127, 1<<32 + 5, 1 << 28, 2097152, 2097151, 16384, 16383, 300, 128, 1}
	if !slices.Equal(got, want) {
		t.Fatalf("recently viewed %v, want %v", got, want)
	}
}

// A session from before the packed list keeps its viewed items: they are
// read from its old LIST, folded into the packed string (behind the new
// views) at its next view, and the LIST is gone then; a sign-in carries
// them over, and ending the session leaves neither key.
func TestViewedItemsInTheOldLayout(t *testing.T) {
	st := limitStore(t, 100)
	ctx, rdb := t.Context(), st.Redis()
	if err := st.Sessions.CreateSession(ctx, "old", 0); err != nil {
		t.Fatal(err)
	}
	sid := keys.SessionID("old")
	old := keys.OldSessionViewedOf(sid)
	rdb.RPush(ctx, old, "9", "300", "20000")
	got, err := st.Sessions.RecentlyViewed(ctx, "old")
	if err != nil || !slices.Equal(got, []int64{9, 300, 20000}) {
		t.Fatalf("before a view: %v, %v; want the old list [9 300 20000]", got, err)
	}
	if _, ids, _ := st.Sessions.SessionWithRecent(ctx, "old", 0); !slices.Equal(ids, []int64{9, 300, 20000}) {
		t.Fatalf("SessionWithRecent before a view: %v", ids)
	}
	if err := st.Sessions.UpdateToken(ctx, "old", true, 300); err != nil {
		t.Fatal(err)
	}
	got, _ = st.Sessions.RecentlyViewed(ctx, "old")
	if !slices.Equal(got, []int64{300, 9, 20000}) {
		t.Fatalf("after a view: %v, want [300 9 20000]", got)
	}
	if n := storetest.Must(rdb.Exists(ctx, old).Result())(t); n != 0 {
		t.Errorf("the old list is still there after the view folded it in")
	}

	// Sign-in from a session still in the old layout.
	if err := st.Sessions.CreateSession(ctx, "old2", 0); err != nil {
		t.Fatal(err)
	}
	rdb.RPush(ctx, keys.OldSessionViewedOf(keys.SessionID("old2")), "5", "6")
	if _, err := st.Sessions.SignIn(ctx, "old2", "new2", 1); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.Sessions.RecentlyViewed(ctx, "new2"); !slices.Equal(got, []int64{5, 6}) {
		t.Errorf("signed in: %v, want [5 6]", got)
	}
	if n := storetest.Must(rdb.Exists(ctx, keys.OldSessionViewedOf(keys.SessionID("old2"))).Result())(t); n != 0 {
		t.Errorf("the old token's list outlived the sign-in")
	}

	// Ending a session drops both layouts.
	if err := st.Sessions.CreateSession(ctx, "ends", 0); err != nil {
		t.Fatal(err)
	}
	if err := st.Sessions.UpdateToken(ctx, "ends", true, 1); err != nil {
		t.Fatal(err)
	}
	ends := keys.SessionID("ends")
	rdb.RPush(ctx, keys.OldSessionViewedOf(ends), "2")
	if err := st.Sessions.EndSession(ctx, "ends"); err != nil {
		t.Fatal(err)
	}
	if n := storetest.Must(rdb.Exists(ctx, keys.SessionViewedOf(ends), keys.OldSessionViewedOf(ends)).Result())(t); n != 0 {
		t.Errorf("%d viewed keys left after the session ended", n)
	}
	if ids, err := sessions.ReadViewed(ctx, rdb, "ends"); err != nil || len(ids) != 0 {
		t.Errorf("ended session reads %v, %v", ids, err)
	}
}

// The cleanup evicts sessions still in the old layout without leaving
// their old lists behind.
func TestCleanupDropsOldViewedLists(t *testing.T) {
	st := limitStore(t, 1)
	ctx, rdb := t.Context(), st.Redis()
	for _, tok := range []string{"old-a", "old-b", "old-c"} {
		if err := st.Sessions.CreateSession(ctx, tok, 0); err != nil {
			t.Fatal(err)
		}
		rdb.RPush(ctx, keys.OldSessionViewedOf(keys.SessionID(tok)), "1", "2")
	}
	if n, err := st.Sessions.CleanSessions(ctx); err != nil || n != 2 {
		t.Fatalf("evicted %d, %v; want 2", n, err)
	}
	if n := sessionKeyCount(t, rdb); n != 1 {
		t.Errorf("%d session keys left, want 1 (the kept session's old list)", n)
	}
}
