package sessions

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/ratelimit"
	"storefront/store/storetest"
	"storefront/store/workers"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// newService is the sessions on clean backends, built from their parts.
func newService(t *testing.T) *Service {
	b := storetest.Base(t)
	return New(b, Options{SessionLimit: 100, ViewedPerSession: 25, PasswordCost: bcrypt.MinCost},
		ratelimit.New(b), cart.New(b, 0), workers.NewHost(b))
}

// TestUnknownNamesCostLikeWrongPasswords: unknown names are checked
// against a hash of the same cost as real ones, so both mistakes take the
// same time.
func TestUnknownNamesCostLikeWrongPasswords(t *testing.T) {
	s := newService(t)
	if c, err := bcrypt.Cost(s.dummyHash()); err != nil || c != s.opt.PasswordCost {
		t.Errorf("dummy hash cost %d (%v), real hashes %d", c, err, s.opt.PasswordCost)
	}
}

// TestCleanupFallbackDeletesEverything: the plain-command way of deleting
// evicted sessions' keys (taken on Cluster when a node refuses the
// deleting script) leaves nothing of them behind, signed in or not.
func TestCleanupFallbackDeletesEverything(t *testing.T) {
	s := newService(t)
	ctx, rdb := t.Context(), s.rdb
	createGuest(t, s, "g1")
	if _, err := s.SignIn(ctx, "", "s1", 42); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateToken(ctx, "s1", false, 9); err != nil {
		t.Fatal(err)
	}
	createGuest(t, s, "kept")
	for _, tok := range []string{"g1", "s1"} {
		if err := rdb.ZRem(ctx, keys.Recent, keys.OfSession(tok).ID).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := dropByCommand(ctx, s, []string{"g1", "s1"}, []float64{1, keys.SignedInScore + 1}); err != nil {
		t.Fatal(err)
	}
	if sessionAlive(t, rdb, "g1", false) || sessionAlive(t, rdb, "s1", true) {
		t.Error("an evicted session is still there")
	}
	if !sessionAlive(t, rdb, "kept", false) {
		t.Error("a session that was not evicted lost its keys")
	}
}

func createGuest(t *testing.T, s *Service, token string) {
	t.Helper()
	if err := s.CreateSession(t.Context(), token, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.carts.SetCartLine(t.Context(), cart.Owner{Token: token}, 7, 1); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateToken(t.Context(), token, true, 7); err != nil {
		t.Fatal(err)
	}
}

func dropByCommand(ctx context.Context, s *Service, tokens []string, scores []float64) error {
	dropped := make([]redis.Z, len(tokens))
	for i, tok := range tokens {
		dropped[i] = redis.Z{Member: keys.SessionID(tok), Score: scores[i]}
	}
	return cleanup{s}.dropSessionsByCommand(ctx, dropped)
}

// sessionAlive says whether any of the session's keys or entries is left.
func sessionAlive(t *testing.T, rdb redis.UniversalClient, token string, signedIn bool) bool {
	t.Helper()
	ctx := t.Context()
	k := keys.OfSession(token)
	n, err := rdb.Exists(ctx, k.Viewed, k.Cart).Result()
	if err != nil {
		t.Fatal(err)
	}
	if rdb.ZScore(ctx, keys.Recent, k.ID).Err() == nil {
		n++
	}
	if signedIn && rdb.HExists(ctx, keys.Login, k.ID).Val() {
		n++
	}
	return n > 0
}
