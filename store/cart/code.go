package cart

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

// GuestCodeTTL is how long a guest's applied discount code is kept after
// the cart was last read: the session cleanup does not know the key, so
// it must end on its own.
const GuestCodeTTL = 7 * 24 * time.Hour

// codeKey is the Redis key of the owner's applied discount code.
func (o Owner) codeKey() string {
	if o.Guest() {
		return keys.GuestCartCode(o.Token)
	}
	return keys.AccountCartCode(o.UserID)
}

// codeTTL is how long the owner's code is kept without use.
func (s *Service) codeTTL(o Owner) time.Duration {
	if o.Guest() {
		return GuestCodeTTL
	}
	return s.accountTTL
}

// SetCode keeps the discount code the shopper applied with the cart (the
// caller checked it); "" removes it.
func (s *Service) SetCode(ctx context.Context, owner Owner, code string) error {
	var err error
	if code == "" {
		err = s.rdb.Del(ctx, owner.codeKey()).Err()
	} else {
		err = s.rdb.Set(ctx, owner.codeKey(), code, s.codeTTL(owner)).Err()
	}
	if err != nil {
		return fmt.Errorf("cart code: %w", err)
	}
	return nil
}

// addCodeRead queues the read of the owner's code, renewing its lifetime.
func (s *Service) addCodeRead(ctx context.Context, pipe redis.Pipeliner, owner Owner) *redis.StringCmd {
	return pipe.GetEx(ctx, owner.codeKey(), s.codeTTL(owner))
}

// AddClearCode queues, on the pipeline that empties a cart after a
// checkout, the removal of the code the order used, if it is still the
// one applied.
func AddClearCode(ctx context.Context, pipe redis.Pipeliner, owner Owner, code string) {
	if code != "" {
		clearCode.Eval(ctx, pipe, []string{owner.codeKey()}, code)
	}
}

// clearCode deletes the key when it still holds ARGV[1].
var clearCode = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`)
