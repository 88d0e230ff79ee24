package apptest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptrace"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"golang.org/x/crypto/bcrypt"

	"storefront/handlers/apptest"
	"storefront/store/platform"
	"storefront/wiring"
)

// The load generator: virtual shoppers, each signed in with a cookie jar
// of its own, send a mixed workload: browse 70%
// (home, listing pages, searches), item pages 20% with a skewed
// popularity (so that the page cache matters), cart 5%, votes 5%.
// TestLoad reports on it; the fault tests run it while they break things.

// Request kinds.
const (
	kindBrowse = "browse"
	kindItem   = "item"
	kindCart   = "cart"
	kindVote   = "vote"
)

var loadKinds = []string{kindBrowse, kindItem, kindCart, kindVote}

// loadMix is the share of each kind, in percent.
var loadMix = map[string]int{kindBrowse: 70, kindItem: 20, kindCart: 5, kindVote: 5}

// searchWords are words of the demo catalog's names.
var searchWords = []string{"lamp", "tent", "kettle", "classic", "nordic", "sage", "mat", "jacket", "puzzle", "pen"}

// workloadConfig is one load run.
type workloadConfig struct {
	Bases    []string      // instances; each request goes to a random one
	Duration time.Duration // 0: until ctx is done
	Items    int           // item ids are 1..Items
	Articles []string      // article ids to vote on
	Only     string        // one request kind instead of the mix (LOAD_KIND), to see what it costs
}

// loadUser is one virtual shopper.
type loadUser struct {
	hc  *http.Client
	rng *rand.Rand
	zip *rand.Zipf
}

// sample is one finished request.
type sample struct {
	answer
	kind string
	took time.Duration
}

// loadRecorder collects samples from every worker.
type loadRecorder struct {
	mu      sync.Mutex
	samples []sample
	onDone  func(sample) // optional: called for every sample (fault tests)
}

func (r *loadRecorder) add(s sample) {
	r.mu.Lock()
	r.samples = append(r.samples, s)
	r.mu.Unlock()
	if r.onDone != nil {
		r.onDone(s)
	}
}

// snapshot returns the samples so far.
func (r *loadRecorder) snapshot() []sample {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.samples)
}

// loadPassword is every load and fault test account's password.
const loadPassword = "load test password"

// newLoadUsers signs n shoppers in on base. With accounts (a test that
// knows the app's database) the accounts are made there at bcrypt's
// lowest cost and signed in through /login, so that slow hashing (under
// -race, next to a small REQUEST_TIMEOUT) does not get in the way;
// without (LOAD_URL), they register through /register, two at a time.
func newLoadUsers(t testing.TB, base string, n int, timeout time.Duration, accounts *accountMaker) []*loadUser {
	t.Helper()
	users := make([]*loadUser, n)
	prefix := "load" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	turns := make(chan struct{}, 2)
	for i := range users {
		jar, _ := cookiejar.New(nil)
		rng := rand.New(rand.NewPCG(uint64(i+1), 99))
		users[i] = &loadUser{
			// An item's bare id moves to its readable URL: followed, as a
			// browser would; every other redirect is the answer.
			hc: &http.Client{Jar: jar, Timeout: timeout, Transport: &http.Transport{MaxIdleConnsPerHost: 4},
				CheckRedirect: followWithOwnID},
			rng: rng,
		}
		name := fmt.Sprintf("%s_%d", prefix, i)
		path := "/register"
		if accounts != nil {
			accounts.make(t, name)
			path = "/login"
		}
		wg.Add(1)
		go func(u *loadUser) {
			defer wg.Done()
			turns <- struct{}{}
			defer func() { <-turns }()
			a := u.post(context.Background(), base, path, url.Values{"username": {name}, "password": {loadPassword}, "email": {strings.ToLower(name) + "@example.com"}})
			err := a.err
			if err == nil && a.status != http.StatusSeeOther {
				err = fmt.Errorf("%s %s: status %d", path, name, a.status)
			}
			if err != nil {
				errs <- err
			}
		}(users[i])
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return users
}

// accountMaker creates accounts straight in an app's database.
type accountMaker struct {
	st *wiring.Services
}

// newAccountMaker opens the database the app with env uses.
func newAccountMaker(t testing.TB, env map[string]string) *accountMaker {
	t.Helper()
	db, err := platform.OpenDB(context.Background(), env["DATABASE_URL"], env["DATA_DIR"])
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"}) // never used: accounts live in SQL
	t.Cleanup(func() { db.Close(); rdb.Close() })
	st := wiring.New(rdb, db, wiring.Options{PasswordCost: bcrypt.MinCost, PageL1Bytes: -1}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	st.Close() // only accounts are made: no background work
	return &accountMaker{st: st}
}

// make creates the account name with loadPassword.
func (a *accountMaker) make(t testing.TB, name string) {
	t.Helper()
	if _, err := a.st.Sessions.CreateUser(context.Background(), name, loadPassword); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
}

// answer is what came back for one request.
type answer struct {
	status int    // 0 for a transport error
	err    error  // transport error
	id     string // the X-Request-ID we sent, which the app logs
	reused bool   // sent on a keep-alive connection that had served before
}

// post sends a same-origin form and drains the answer.
func (u *loadUser) post(ctx context.Context, base, path string, form url.Values) answer {
	req, _ := http.NewRequestWithContext(ctx, "POST", base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	// Setting a cart line's quantity and voting a direction are
	// idempotent; saying so lets the client retry a request that met a
	// keep-alive connection the server closed before reading it (as
	// during a graceful shutdown), as it does for GETs.
	req.Header.Set("Idempotency-Key", randomKey(u.rng))
	return u.send(req)
}

func (u *loadUser) get(ctx context.Context, base, path string) answer {
	req, _ := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	req.Header.Set("Accept-Encoding", "gzip") // as browsers do: cached pages are sent compressed
	return u.send(req)
}

// hopKey holds, in a request's context, the id of its latest hop.
type hopKey struct{}

// followWithOwnID follows a permanent move as apptest.FollowMoves does,
// giving the next hop an id of its own: the app logs each hop, and a hop
// it never took (refused once it stopped listening) must not read as the
// earlier hop it answered.
func followWithOwnID(req *http.Request, via []*http.Request) error {
	if err := apptest.FollowMoves(req, via); err != nil {
		return err
	}
	if id, ok := req.Context().Value(hopKey{}).(*string); ok {
		*id = fmt.Sprintf("%s-%d", *id, len(via))
		req.Header.Set("X-Request-ID", *id)
	}
	return nil
}

func (u *loadUser) send(req *http.Request) answer {
	a := answer{id: randomKey(u.rng) + randomKey(u.rng)}
	req.Header.Set("X-Request-ID", a.id)
	ctx := context.WithValue(req.Context(), hopKey{}, &a.id)
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(i httptrace.GotConnInfo) { a.reused = i.Reused },
	}))
	res, err := u.hc.Do(req)
	if err != nil {
		a.err = err
		return a
	}
	_, a.err = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	a.status = res.StatusCode
	return a
}

// pick chooses a request kind by loadMix.
func (u *loadUser) pick() string {
	n := u.rng.IntN(100)
	for _, k := range loadKinds {
		if n < loadMix[k] {
			return k
		}
		n -= loadMix[k]
	}
	return kindBrowse
}

// one sends one request of kind.
func (u *loadUser) one(ctx context.Context, cfg workloadConfig, kind string) answer {
	base := cfg.Bases[u.rng.IntN(len(cfg.Bases))]
	switch kind {
	case kindItem:
		return u.get(ctx, base, "/items/"+strconv.FormatUint(u.zip.Uint64()+1, 10))
	case kindCart:
		// Set a quantity of one of the popular items (most are in stock);
		// sometimes remove the line again, so carts stay small.
		qty := u.rng.IntN(3)
		return u.post(ctx, base, "/cart", url.Values{"item": {strconv.FormatUint(u.zip.Uint64()+1, 10)}, "qty": {strconv.Itoa(qty)}})
	case kindVote:
		if len(cfg.Articles) == 0 {
			return u.get(ctx, base, "/articles")
		}
		dir := []string{"up", "down", "none"}[u.rng.IntN(3)]
		a := cfg.Articles[u.rng.IntN(len(cfg.Articles))]
		return u.post(ctx, base, "/articles/"+a+"/vote", url.Values{"dir": {dir}})
	}
	switch u.rng.IntN(3) {
	case 0:
		return u.get(ctx, base, "/")
	case 1:
		return u.get(ctx, base, "/items?page="+strconv.Itoa(1+u.rng.IntN(10)))
	}
	return u.get(ctx, base, "/items?q="+searchWords[u.rng.IntN(len(searchWords))])
}

// runLoad runs the workload with one worker per user until cfg.Duration
// has passed or ctx is done. In-flight requests are not cancelled at the
// end: they finish and are counted.
func runLoad(ctx context.Context, cfg workloadConfig, users []*loadUser, rec *loadRecorder) time.Duration {
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, u := range users {
		u.zip = rand.NewZipf(u.rng, 1.1, 1, uint64(max(cfg.Items, 1)-1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				kind := u.pick()
				if cfg.Only != "" {
					kind = cfg.Only
				}
				t0 := time.Now()
				a := u.one(context.WithoutCancel(ctx), cfg, kind)
				rec.add(sample{answer: a, kind: kind, took: time.Since(t0)})
			}
		}()
	}
	wg.Wait()
	return time.Since(start)
}

// articleIDs reads the article ids on the top articles page.
func articleIDs(t testing.TB, base string) []string {
	t.Helper()
	res, err := http.Get(base + "/articles")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var ids []string
	for _, m := range regexp.MustCompile(`data-article-id="(\d+)"`).FindAllStringSubmatch(string(b), -1) {
		if !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// loadStats summarises samples of one kind (or all).
type loadStats struct {
	n, errs, rejected int // errs: transport errors and 5xx; rejected: 4xx
	p50, p99, max     time.Duration
	statuses          map[int]int
}

func summarise(samples []sample, kind string) loadStats {
	st := loadStats{statuses: map[int]int{}}
	var took []time.Duration
	for _, s := range samples {
		if kind != "" && s.kind != kind {
			continue
		}
		st.n++
		st.statuses[s.status]++
		took = append(took, s.took)
		switch {
		case s.err != nil || s.status >= 500:
			st.errs++
		case s.status >= 400:
			st.rejected++
		}
	}
	if len(took) > 0 {
		sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
		st.p50 = took[len(took)/2]
		st.p99 = took[min(len(took)-1, len(took)*99/100)]
		st.max = took[len(took)-1]
	}
	return st
}

// transportErrors returns the distinct transport errors among samples.
func transportErrors(samples []sample) []string {
	var out []string
	for _, s := range samples {
		if s.err != nil {
			msg := s.err.Error()
			var ue *url.Error
			if errors.As(s.err, &ue) {
				msg = ue.Err.Error()
			}
			if !slices.Contains(out, msg) {
				out = append(out, msg)
			}
		}
	}
	return out
}

func randomKey(r *rand.Rand) string { return strconv.FormatUint(r.Uint64(), 36) }
