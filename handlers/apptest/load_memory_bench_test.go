package apptest_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"storefront/store/cart"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/seed"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// BenchmarkSessionMemory measures the Redis memory one session takes with
// VIEWED_PER_SESSION (25) viewed items and a 3-line cart, through the
// store's own methods: the growth of INFO used_memory divided by b.N
// sessions. It runs on a redis-server of its own (a shared server's
// memory moves with everyone else's work), default settings but no
// append-only file:
//
//	go test -run XXX -bench SessionMemory -benchtime 50000x ./handlers/apptest
//
// The figure feeds the "Scaling out" arithmetic in docs/operations.md
// (and its measurement is in docs/performance.md).
func BenchmarkSessionMemory(b *testing.B) {
	for _, kind := range []string{"guest", "signed-in"} {
		b.Run(kind, func(b *testing.B) {
			rs := startOwnRedis(b, "--appendonly", "no")
			rdb := rs.Client()
			opt := wiringtest.Options()
			opt.RedisMode = platform.ModeSingle
			st := wiring.New(rdb, storetest.DB(b), opt, storetest.Logger(b))
			b.Cleanup(st.Close)
			ctx := context.Background()
			// Every item has been viewed once, so that `viewed:` (shared by
			// all sessions) does not grow with the sessions measured.
			warm := sessionToken()
			if err := st.Sessions.CreateSession(ctx, warm, 0); err != nil {
				b.Fatal(err)
			}
			for id := int64(1); id <= seed.DemoItemCount; id++ {
				if err := st.Sessions.UpdateToken(ctx, warm, true, id); err != nil {
					b.Fatal(err)
				}
			}
			before := usedMemory(b, rdb)
			b.ResetTimer()
			const workers = 16
			var wg sync.WaitGroup
			for w := range workers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < b.N; i += workers {
						if err := fillSession(ctx, st, i, kind == "signed-in"); err != nil {
							b.Error(err)
							return
						}
					}
				}()
			}
			wg.Wait()
			b.StopTimer()
			after := usedMemory(b, rdb)
			b.ReportMetric(float64(after-before)/float64(b.N), "bytes/session")
			// The part in the few keys every session shares (one Cluster
			// slot each), as opposed to its own viewed:{<sid>} and cart:{<sid>}.
			var shared int64
			for _, k := range []string{keys.Recent, keys.Login} {
				n, err := rdb.MemoryUsage(ctx, k, 0).Result()
				if err == nil {
					shared += n
				}
			}
			b.ReportMetric(float64(shared)/float64(b.N), "shared-key-bytes/session")
		})
	}
}

// fillSession makes session i: 25 item views and a 3-line cart.
func fillSession(ctx context.Context, st *wiring.Services, i int, signedIn bool) error {
	token := sessionToken()
	var user int64
	if signedIn {
		user = int64(i + 1)
	}
	if err := st.Sessions.CreateSession(ctx, token, user); err != nil {
		return err
	}
	for v := range 25 {
		if err := st.Sessions.UpdateToken(ctx, token, !signedIn, int64((i*31+v*7)%seed.DemoItemCount+1)); err != nil {
			return err
		}
	}
	for l := range 3 {
		if _, err := st.Cart.SetCartLine(ctx, cart.Owner{Token: token}, int64((i+l*97)%seed.DemoItemCount+1), int64(l+1)); err != nil {
			return err
		}
	}
	return nil
}

// usedMemory is INFO memory's used_memory.
func usedMemory(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no used_memory in INFO")
	return 0
}

// sessionToken is shaped like the app's tokens (66 characters: 256 random
// bits and a MAC, base64), so that the keys it names weigh the same.
func sessionToken() string {
	r, m := make([]byte, 32), make([]byte, 16)
	_, _ = rand.Read(r)
	_, _ = rand.Read(m)
	return base64.RawURLEncoding.EncodeToString(r) + "." + base64.RawURLEncoding.EncodeToString(m)
}
