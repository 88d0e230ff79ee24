package platform

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestWrittenKeys: the keys a command may change, as go-redis spells the
// commands the shop sends: the key of a single-key write, every key of a
// multi-key write, a script's KEYS and not its ARGV, nothing for reads.
func TestWrittenKeys(t *testing.T) {
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer c.Close()
	p := c.Pipeline() // queued, never sent: only the arguments are read
	script := redis.NewScript(`return 1`)
	cases := []struct {
		cmd  redis.Cmder
		want []string
	}{
		{p.HSet(ctx, "cart:{s}", "3", 2), []string{"cart:{s}"}},
		{p.HDel(ctx, "login:", "sid"), []string{"login:"}},
		{p.ZAddArgs(ctx, "recent:", redis.ZAddArgs{XX: true, Members: []redis.Z{{Score: 1, Member: "sid"}}}), []string{"recent:"}},
		{p.Set(ctx, "k", "v", time.Minute), []string{"k"}},
		{p.Unlink(ctx, "viewed:{s}", "cart:{s}"), []string{"viewed:{s}", "cart:{s}"}},
		{p.Del(ctx, "a", "b", "c"), []string{"a", "b", "c"}},
		{p.MSet(ctx, "a", "1", "b", "2"), []string{"a", "b"}},
		{p.Rename(ctx, "a", "b"), []string{"a", "b"}},
		{p.ZInterStore(ctx, "dest", &redis.ZStore{Keys: []string{"x", "y"}, Weights: []float64{1, 2}}), []string{"dest", "x", "y"}},
		{script.Eval(ctx, p, []string{"k1", "k2"}, "arg1", 5), []string{"k1", "k2"}},
		{script.EvalSha(ctx, p, []string{"k1"}, "arg1"), []string{"k1"}},
		{script.Eval(ctx, p, nil, "arg1"), nil},
		{p.LPush(ctx, "list", "1"), []string{"list"}},
		{p.BLPop(ctx, time.Second, "q1", "q2"), []string{"q1", "q2"}},
		{p.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"s1", "s2", ">", ">"}}), []string{"s1", "s2"}},
		{p.HGetAll(ctx, "article:1"), nil},
		{p.HVals(ctx, "cart:{s}"), nil},
		{p.ZRevRange(ctx, "score:", 0, 9), nil},
		{p.Exists(ctx, "a", "b"), nil},
		{p.Publish(ctx, "purge", "1"), nil},
		{p.Ping(ctx), nil},
	}
	for _, tc := range cases {
		if got := writtenKeys(tc.cmd.Args(), nil); !slices.Equal(got, tc.want) {
			t.Errorf("%v: keys %q, want %q", tc.cmd.Args(), got, tc.want)
		}
	}
}
