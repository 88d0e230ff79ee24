package sessions_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// Benchmarks that need a real Redis skip on miniredis. Run them with:
//
//	REDIS_URL=redis://127.0.0.1:6379/1 go test ./store -run '^$' -bench 'Cleanup|SessionMemory' -benchtime 3x

func needRealRedis(b *testing.B) {
	if storetest.Backend() == platform.ModeMiniredis {
		b.Skip("needs a real Redis: set REDIS_URL or REDIS_CLUSTER_ADDRS")
	}
}

// benchToken is a token of the real length (66 characters).
func benchToken() string {
	buf := make([]byte, 49)
	_, _ = rand.Read(buf)
	s := base64.RawURLEncoding.EncodeToString(buf)
	return s[:43] + "." + s[43:65]
}

// fillSessions writes n full sessions the way the shop leaves them: a
// `recent:` entry (and, for every tenth, a `login:` entry), 25 viewed
// items and a 3-line cart. It pipelines in chunks.
func fillSessions(b *testing.B, rdb redis.UniversalClient, n int, start float64) {
	b.Helper()
	ctx := context.Background()
	const chunk = 500
	for done := 0; done < n; done += chunk {
		pipe := rdb.Pipeline()
		for i := done; i < min(done+chunk, n); i++ {
			var user int64
			if i%10 == 0 {
				user = int64(i + 1)
			}
			views := make([]any, 25)
			for v := range views {
				views[v] = strconv.Itoa(1 + (i*7+v*13)%1200)
			}
			queueSession(ctx, pipe, benchToken(), user, start+float64(i)/1000, views,
				strconv.Itoa(1+i%1200), "1", strconv.Itoa(1+(i+400)%1200), "2", strconv.Itoa(1+(i+800)%1200), "3")
		}
		if _, err := pipe.Exec(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCleanup measures eviction throughput: each round fills
// SessionLimit + 200,000 full sessions and times CleanSessions evicting
// the 200,000.
func BenchmarkCleanup(b *testing.B) {
	needRealRedis(b)
	const limit, over = 1000, 200_000
	st := wiringtest.New(b, func(o *wiring.Options) { o.SessionLimit = limit })
	ctx, rdb := context.Background(), st.Redis()
	var evicted int64
	var took, cpu time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		fillSessions(b, rdb, limit+over, float64(1_700_000_000+i*1_000_000))
		cpu0 := redisCPU(b, rdb)
		b.StartTimer()
		start := time.Now()
		n, err := st.Sessions.CleanSessions(ctx)
		took += time.Since(start)
		cpu += redisCPU(b, rdb) - cpu0
		if err != nil || n != over {
			b.Fatalf("evicted %d, %v; want %d", n, err, over)
		}
		evicted += n
		b.StopTimer()
		if left := rdb.ZCard(ctx, keys.Recent).Val(); left != limit {
			b.Fatalf("%d sessions left, want %d", left, limit)
		}
		flushAll(b, rdb) // the next round starts from nothing
		b.StartTimer()
	}
	b.ReportMetric(float64(evicted)/took.Seconds(), "evicted/s")
	// Redis CPU time per eviction (summed over the masters on Cluster): the
	// servers' share, which a busy machine inflates less than the wall
	// clock. Only this benchmark's when nothing else uses the servers.
	b.ReportMetric(float64(cpu.Microseconds())/float64(evicted), "redis-cpu-µs/evicted")
	b.ReportMetric(0, "ns/op")
}

// redisCPU is the Redis servers' CPU time so far (user + system), summed
// over every master on Cluster.
func redisCPU(b *testing.B, rdb redis.UniversalClient) time.Duration {
	b.Helper()
	ctx := context.Background()
	if c, ok := rdb.(*redis.ClusterClient); ok {
		var mu sync.Mutex
		var total time.Duration
		err := c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error {
			d := nodeCPU(m.Info(ctx, "cpu").Val())
			mu.Lock()
			total += d
			mu.Unlock()
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return total
	}
	return nodeCPU(rdb.Info(ctx, "cpu").Val())
}

// nodeCPU reads used_cpu_user + used_cpu_sys from an INFO cpu reply.
func nodeCPU(info string) time.Duration {
	var total float64
	for _, line := range strings.Split(info, "\r\n") {
		for _, k := range []string{"used_cpu_user:", "used_cpu_sys:"} {
			if v, ok := strings.CutPrefix(line, k); ok {
				f, _ := strconv.ParseFloat(v, 64)
				total += f
			}
		}
	}
	return time.Duration(total * float64(time.Second))
}

// flushAll empties the benchmark's Redis (every master on Cluster).
func flushAll(b *testing.B, rdb redis.UniversalClient) {
	b.Helper()
	ctx := context.Background()
	var err error
	if c, ok := rdb.(*redis.ClusterClient); ok {
		err = c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return m.FlushDB(ctx).Err() })
	} else {
		err = rdb.FlushDB(ctx).Err()
	}
	if err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSessionMemory measures Redis memory per session with 25 viewed
// items and a 3-line cart, sessions written as fillSessions does: the INFO
// used_memory delta over 50,000 sessions, and the same from MEMORY USAGE of
// each session's own keys plus its share of `recent:` and `login:`. Single
// node only (INFO is per node); run it on a server of its own.
func BenchmarkSessionMemory(b *testing.B) {
	needRealRedis(b)
	if storetest.Backend() != platform.ModeSingle {
		b.Skip("INFO memory needs a single node")
	}
	const n = 50_000
	rdb := storetest.Redis(b)
	ctx := context.Background()
	var perSession, perSessionKeys float64
	for i := 0; i < b.N; i++ {
		flushAll(b, rdb)
		before := usedMemory(b, rdb)
		fillSessions(b, rdb, n, 1_700_000_000)
		after := usedMemory(b, rdb)
		perSession = float64(after-before) / n

		var shared int64 // the bytes of `recent:` and `login:`
		for _, k := range []string{keys.Recent, keys.Login} {
			shared += rdb.MemoryUsage(ctx, k, 0).Val()
		}
		sids := rdb.ZRange(ctx, keys.Recent, 0, 999).Val()
		var sample int64
		for _, sid := range sids {
			sample += rdb.MemoryUsage(ctx, keys.SessionViewedOf(sid), 0).Val() + rdb.MemoryUsage(ctx, keys.GuestCartOf(sid), 0).Val()
		}
		perSessionKeys = float64(shared)/n + float64(sample)/float64(len(sids))
	}
	flushAll(b, rdb)
	b.ReportMetric(perSession, "bytes/session")
	b.ReportMetric(perSessionKeys, "usage-bytes/session")
	b.ReportMetric(0, "ns/op")
}

func usedMemory(b *testing.B, rdb redis.UniversalClient) int64 {
	b.Helper()
	info, err := rdb.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	b.Fatal("no used_memory in INFO")
	return 0
}

// BenchmarkUpdateToken is the item-view session write (touch, viewed
// list, view counts) on its own: one pipelined round trip.
func BenchmarkUpdateToken(b *testing.B) {
	st := wiringtest.New(b)
	ctx := context.Background()
	if err := st.Sessions.NewSessionView(ctx, "bench", 1); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		if err := st.Sessions.UpdateToken(ctx, "bench", true, int64(1+i%1200)); err != nil {
			b.Fatal(err)
		}
	}
}

// queueSession queues a whole session as the shop leaves one (its
// `recent:` entry seen at seen, a `login:` entry when userID > 0, the
// viewed list newest first and the cart's field/value pairs), for
// benchmarks that need many sessions quickly.
func queueSession(ctx context.Context, pipe redis.Pipeliner, token string, userID int64, seen float64, viewed []any, cart ...any) {
	k := keys.OfSession(token)
	if userID > 0 {
		seen += keys.SignedInScore
		pipe.HSet(ctx, keys.Login, k.ID, userID)
	}
	pipe.ZAdd(ctx, keys.Recent, redis.Z{Score: seen, Member: k.ID})
	ids := make([]int64, len(viewed))
	for i, v := range viewed {
		ids[i], _ = strconv.ParseInt(fmt.Sprint(v), 10, 64)
	}
	pipe.Set(ctx, k.Viewed, sessions.PackViewed(ids), 0)
	pipe.HSet(ctx, k.Cart, cart...)
}
