package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
)

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = fmt.Sprintf(format, args...)
}

// TestMustFailsOnReadErrors: a read that proves "nothing there" fails the
// test when it failed itself; redis.Nil (an absent key) is a value.
func TestMustFailsOnReadErrors(t *testing.T) {
	r := &recorder{TB: t}
	if n := Must(int64(0), errors.New("i/o timeout"))(r); n != 0 || r.failed == "" {
		t.Errorf("a failed read passed: %d, failure %q", n, r.failed)
	}
	r = &recorder{TB: t}
	if v := Must("", redis.Nil)(r); v != "" || r.failed != "" {
		t.Errorf("an absent key failed the test: %q", r.failed)
	}
	r = &recorder{TB: t}
	if n := Must(int64(3), nil)(r); n != 3 || r.failed != "" {
		t.Errorf("a good read: %d, failure %q", n, r.failed)
	}
}
