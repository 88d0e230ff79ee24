package social

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/workers"
)

// Fan-out on write (timelines), with a bounded cost per post.
//
// A post reaches the author's first FanOutInline followers (oldest
// follows first) before RecordPost returns. If there are more, a job goes
// on the `fanout:` queue and the fan-out workers of every instance take it
// in steps of FanOutChunk followers, each step queueing the next. So a
// post by someone with a million followers costs its request a bounded
// amount of work, and the rest is spread over time and instances.
//
// The queue is a sorted set of jobs scored by the time they may next run.
// Claiming a job pushes that time FanOutLease ahead; finishing a step
// replaces the job by its continuation. A worker that dies mid-step leaves
// its job to be claimed again when the lease runs out: steps are
// idempotent (ZADD), so a step done twice is harmless and none is lost.
// Only feeds that exist are written (feedAddScript): idle users' feeds
// have expired and are rebuilt when read.

// fanOutLease is how long a claimed step may take before another worker
// may take it over.
const fanOutLease = 30 * time.Second

// fanOutJob is the rest of one post's fan-out: the followers of Author
// from follow time From on (From 0: from the first), skipping Skip
// followers at exactly From that are done.
type fanOutJob struct {
	Author  int64   `json:"a"`
	Article int64   `json:"p"`
	Posted  float64 `json:"t"`
	From    float64 `json:"f"`
	Skip    int64   `json:"k"`
}

// claimFanOutScript takes the earliest due job and leases it.
var claimFanOutScript = redis.NewScript(`
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #due == 0 then return false end
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]), due[1])
return due[1]`)

// finishFanOutScript removes a done job and queues its continuation
// (ARGV[2], if any), unless another worker finished the job first.
var finishFanOutScript = redis.NewScript(`
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 and ARGV[2] ~= '' then
  redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
end
return 1`)

// FanOutArticle delivers an article to the feeds of its author's
// followers: the first FanOutInline now, the rest through the queue.
func (s *Service) FanOutArticle(ctx context.Context, authorID, articleID int64, postedAt float64) error {
	next, more, err := s.fanOutStep(ctx, fanOutJob{Author: authorID, Article: articleID, Posted: postedAt}, s.opt.FanOutInline)
	if err != nil || !more {
		return err
	}
	b, _ := json.Marshal(next)
	if err := s.rdb.ZAdd(ctx, keys.FanOut, redis.Z{Score: s.clock.Seconds(), Member: string(b)}).Err(); err != nil {
		return fmt.Errorf("fan out: queue: %w", err)
	}
	return nil
}

// fanOutStep writes the article into the feeds of up to limit followers
// from the job's cursor on, in one pipelined round trip, and returns the
// job that continues after them and whether there may be more.
func (s *Service) fanOutStep(ctx context.Context, job fanOutJob, limit int) (fanOutJob, bool, error) {
	from := "-inf"
	if job.From > 0 {
		from = strconv.FormatFloat(job.From, 'f', -1, 64)
	}
	followers, err := s.rdb.ZRangeByScoreWithScores(ctx, keys.Followers(job.Author),
		&redis.ZRangeBy{Min: from, Max: "+inf", Offset: job.Skip, Count: int64(limit)}).Result()
	if err != nil {
		return job, false, fmt.Errorf("fan out: %w", err)
	}
	calls := make([][]string, len(followers))
	for i, f := range followers {
		id, _ := strconv.ParseInt(fmt.Sprint(f.Member), 10, 64)
		calls[i] = []string{keys.Feed(id)}
	}
	size, posted, article := s.opt.FeedSize, job.Posted, platform.FormatID(job.Article)
	if err := platform.EvalInPipeline(ctx, s.rdb, feedAddScript, calls, func(int) []any { return []any{size, posted, article} }); err != nil {
		return job, false, fmt.Errorf("fan out: %w", err)
	}
	if len(followers) < limit {
		return job, false, nil
	}
	// Continue after the last follower: at its follow time, skipping the
	// ones at that exact time that are done (ties are rare but possible).
	next := job
	last := followers[len(followers)-1].Score
	if last != job.From {
		next.From, next.Skip = last, 0
	}
	for _, f := range followers {
		if f.Score == last {
			next.Skip++
		}
	}
	return next, true, nil
}

// RunFanOut does queued fan-out steps until none is due and returns how
// many it did. The worker calls it; tests call it to drain the queue.
func (s *Service) RunFanOut(ctx context.Context) (int, error) {
	steps := 0
	for ctx.Err() == nil {
		member, err := claimFanOutScript.Run(ctx, s.rdb, []string{keys.FanOut}, s.clock.Seconds(), fanOutLease.Seconds()).Text()
		if errors.Is(err, redis.Nil) {
			return steps, nil
		}
		if err != nil {
			return steps, fmt.Errorf("fan out: claim: %w", err)
		}
		var job fanOutJob
		if json.Unmarshal([]byte(member), &job) != nil {
			// Not ours to understand: drop it rather than retry forever.
			_ = s.rdb.ZRem(ctx, keys.FanOut, member).Err()
			continue
		}
		next, more, err := s.fanOutStep(ctx, job, s.opt.FanOutChunk)
		if err != nil {
			return steps, err // the lease runs out and the step is retried
		}
		cont := ""
		if more {
			b, _ := json.Marshal(next)
			cont = string(b)
		}
		if err := finishFanOutScript.Run(ctx, s.rdb, []string{keys.FanOut}, member, cont, s.clock.Seconds()).Err(); err != nil {
			return steps, fmt.Errorf("fan out: finish: %w", err)
		}
		steps++
	}
	return steps, ctx.Err()
}

// QueuedFanOuts is how many fan-out jobs wait, for tests and dashboards.
func (s *Service) QueuedFanOuts(ctx context.Context) (int64, error) {
	return s.rdb.ZCard(ctx, keys.FanOut).Result()
}

// fanOutWorker runs queued fan-out steps on every instance; the queue's
// leases keep two instances from doing the same step at once.
type fanOutWorker struct{ s *Service }

// Name names the worker in logs and on the dashboard.
func (w *fanOutWorker) Name() string { return keys.WorkerFanOut }

// Run polls the queue until ctx is done: at once while there is work,
// every 100 ms when idle, every second after an error.
func (w *fanOutWorker) Run(ctx context.Context) {
	var pace workers.Pace
	for {
		wait := 100 * time.Millisecond
		n, err := w.s.RunFanOut(ctx)
		if err != nil && ctx.Err() == nil {
			w.s.log.Warn("fan-out step failed", "err", err)
			wait = time.Second
		}
		if done, now := pace.Add(int64(n), err); now && ctx.Err() == nil {
			w.s.host.Report(ctx, w.Name(), workers.Run{Result: fmt.Sprintf("fan-out steps: %d", done), Err: err, Counts: map[string]int64{"steps": done}})
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
