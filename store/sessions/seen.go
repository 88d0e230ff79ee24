package sessions

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"storefront/store/keys"
)

// SeenSince counts the sessions, guests and signed-in, last seen at or
// after since: the visits the sales page divides orders by. A session
// counts once, by its last visit, and a session the cleanup evicted is
// not counted.
func (s *Service) SeenSince(ctx context.Context, since time.Time) (int64, error) {
	from := float64(since.Unix())
	pipe := s.rdb.Pipeline()
	guests := pipe.ZCount(ctx, keys.Recent, ftoa(from), "("+ftoa(keys.SignedInScore))
	members := pipe.ZCount(ctx, keys.Recent, ftoa(from+keys.SignedInScore), "+inf")
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, fmt.Errorf("sessions seen: %w", err)
	}
	return guests.Val() + members.Val(), nil
}

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
