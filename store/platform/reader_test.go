package platform_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
	"storefront/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// TestReaderWithoutCacheIsOnePipeline: without a caching client, the
// reads go together in one round trip.
func TestReaderWithoutCacheIsOnePipeline(t *testing.T) {
	rdb := storetest.Redis(t)
	ctx := t.Context()
	rdb.Set(ctx, "platform-test-a", "1", 0)
	hook := &countHook{}
	rdb.AddHook(hook)
	r := platform.NewReader(rdb, &platform.Clock{})
	var a, b *redis.StringCmd
	err := r.Read(ctx, func(c redis.Cmdable) error {
		a, b = c.Get(ctx, "platform-test-a"), c.Get(ctx, "platform-test-missing")
		return platform.CmdErr(a, b)
	})
	if err != nil || a.Val() != "1" || b.Err() != redis.Nil {
		t.Fatalf("read: %v, a=%q b=%v", err, a.Val(), b.Err())
	}
	if hook.pipelines != 1 || hook.single != 0 {
		t.Errorf("%d pipelines and %d single commands, want one pipeline", hook.pipelines, hook.single)
	}
}

// TestReaderFallsBackWhenTheCacheFails: a caching client that fails is
// kept off for a while, and the read is made again from Redis.
func TestReaderFallsBackWhenTheCacheFails(t *testing.T) {
	rdb := storetest.Redis(t)
	ctx := t.Context()
	rdb.Set(ctx, "platform-test-a", "1", 0)
	now := time.Unix(1_000_000, 0)
	clock := &platform.Clock{}
	clock.Set(func() time.Time { return now })
	r := platform.NewReader(rdb, clock)
	broken := platform.NewCachingClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond}, 1<<20)
	broken.Close()
	r.UseCache(broken)
	if r.Cached() != broken.Client {
		t.Fatal("the caching client is not used")
	}
	var a *redis.StringCmd
	err := r.Read(ctx, func(c redis.Cmdable) error {
		a = c.Get(ctx, "platform-test-a")
		return platform.CmdErr(a)
	})
	if err != nil || a.Val() != "1" {
		t.Fatalf("read after the caching client failed: %v %q", err, a.Val())
	}
	if r.Cached() != nil {
		t.Error("a failed caching client is still used")
	}
	now = now.Add(11 * time.Second)
	if r.Cached() != broken.Client {
		t.Error("the caching client is not tried again after the pause")
	}
}

// handshake says whether cmd is part of a new connection's set-up
// (HELLO, then SELECT of a DB other than 0 and CLIENT SETINFO, pipelined).
func handshake(cmd redis.Cmder) bool {
	return cmd.Name() == "hello" || cmd.Name() == "client" || cmd.Name() == "select"
}

// countHook counts what a client sends: pipelines and single commands,
// leaving out the set-up of new connections.
type countHook struct{ pipelines, single int }

func (h *countHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *countHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if !handshake(cmd) {
			h.single++
		}
		return next(ctx, cmd)
	}
}

func (h *countHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && !handshake(cmds[0]) {
			h.pipelines++
		}
		return next(ctx, cmds)
	}
}
