package sessions_test

import (
	"testing"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/wiring/wiringtest"
)

// An account's sessions and their devices are one key: an account kept
// the old way (a ZSET of sessions and a HASH of devices) is folded into
// it when first touched, keeping every session's sign-in time and device;
// the devices key goes; signing in again, the list and "sign out other
// devices" work on the one key.
func TestAccountSessionsAreOneKey(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	owner, uid := wiringtest.Shopper(t, st, "merger")
	rdb := st.Redis()
	sid := keys.SessionID(owner.Token)
	// The account as the previous version kept it.
	if err := rdb.Del(ctx, keys.UserSessions(uid)).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.ZAdd(ctx, keys.UserSessions(uid), redis.Z{Score: 1_700_000_000, Member: sid})
	rdb.HSet(ctx, keys.UserDevices(uid), sid, "Firefox on Linux")
	rdb.HSet(ctx, keys.Login, sid, uid)

	list, err := st.Sessions.UserSessionList(ctx, uid, owner.Token)
	if err != nil || len(list) != 1 || list[0].Device != "Firefox on Linux" || list[0].SignedIn.Unix() != 1_700_000_000 || !list[0].Current {
		t.Fatalf("the old account's list: %+v %v", list, err)
	}
	if typ := rdb.Type(ctx, keys.UserSessions(uid)).Val(); typ != "hash" {
		t.Errorf("sessions key is a %s", typ)
	}
	if n := rdb.Exists(ctx, keys.UserDevices(uid)).Val(); n != 0 {
		t.Error("the devices key outlived the merge")
	}
	// A second device signs in and is noted on the same key.
	if _, err := st.Sessions.SignIn(ctx, "", "token-phone", uid); err != nil {
		t.Fatal(err)
	}
	if err := st.Sessions.NoteDevice(ctx, uid, "token-phone", "Safari on iPhone"); err != nil {
		t.Fatal(err)
	}
	list, err = st.Sessions.UserSessionList(ctx, uid, "token-phone")
	if err != nil || len(list) != 2 {
		t.Fatalf("two devices: %+v %v", list, err)
	}
	devices := map[string]bool{}
	for _, s := range list {
		devices[s.Device] = true
	}
	if !devices["Safari on iPhone"] || !devices["Firefox on Linux"] {
		t.Errorf("devices %v", devices)
	}
	if keysOf := rdb.Keys(ctx, "{user:*}:devices").Val(); len(keysOf) != 0 {
		t.Errorf("devices keys %v", keysOf)
	}
	// Sign out the other devices: only the phone stays.
	if n, err := st.Sessions.EndUserSessions(ctx, uid, "token-phone"); err != nil || n != 1 {
		t.Fatalf("ended %d: %v", n, err)
	}
	list, err = st.Sessions.UserSessionList(ctx, uid, "token-phone")
	if err != nil || len(list) != 1 || list[0].Device != "Safari on iPhone" {
		t.Errorf("after signing out the others: %+v %v", list, err)
	}
	if n := rdb.HLen(ctx, keys.UserSessions(uid)).Val(); n != 1 {
		t.Errorf("the sessions hash holds %d", n)
	}
}
