package sessions

import (
	"errors"
	"sync"
	"testing"
)

// TestOwnersDemotingEachOtherKeepOne: two owners demoting each other at
// the same moment, many times over: every time exactly one owner stays,
// and the refused change says why (the last owner, or the one asking was
// demoted first). Run with -race on PostgreSQL for the row locks.
func TestOwnersDemotingEachOtherKeepOne(t *testing.T) {
	s := newService(t)
	ctx := t.Context()
	first, err := s.createUser(ctx, "boss", "correct horse battery", true, s.opt.PasswordCost)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetRole(ctx, first.ID, first.ID, RoleManager); !errors.Is(err, ErrLastOwner) {
		t.Fatalf("the only owner demoted themself: %v", err)
	}
	owner := first.ID
	for round := range 10 {
		other, err := s.createUser(ctx, "owner"+string(rune('a'+round)), "correct horse battery", true, s.opt.PasswordCost)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, pair := range [][2]int64{{owner, other.ID}, {other.ID, owner}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.SetRole(ctx, pair[0], pair[1], RoleSupport)
			}()
		}
		wg.Wait()
		var n int
		if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM users WHERE role = 'owner'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("round %d: %d owners (%v)", round, n, errs)
		}
		switch {
		case errs[0] == nil && (errors.Is(errs[1], ErrNotOwner) || errors.Is(errs[1], ErrLastOwner)):
		case errs[1] == nil && (errors.Is(errs[0], ErrNotOwner) || errors.Is(errs[0], ErrLastOwner)):
			owner = other.ID
		default:
			t.Fatalf("round %d: %v", round, errs)
		}
	}
}
