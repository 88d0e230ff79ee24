package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// Service keeps the users' notifications.
type Service struct {
	rdb   redis.UniversalClient
	log   *slog.Logger
	clock *platform.Clock
}

// New returns the notifications.
func New(b platform.Base) *Service { return &Service{rdb: b.Redis, log: b.Log, clock: b.Clock} }

// notesKept is how many notifications a user keeps.
const notesKept = 50

// Notification kinds: votes and comments on your articles, new followers.
const (
	NoteVote     = "vote"
	NoteComment  = "comment"
	NoteFollower = "follower"
	NoteOrder    = "order" // one of your orders changed status
)

// NoteKinds lists the kinds in the order pages show them.
var NoteKinds = []string{NoteVote, NoteComment, NoteFollower, NoteOrder}

// Note is one notification: who (Actor) did what (Kind) to which article.
type Note struct {
	Kind      string  `json:"k"`
	Actor     string  `json:"a"`
	ArticleID int64   `json:"id,omitempty"`
	Title     string  `json:"t,omitempty"`
	Dir       string  `json:"d,omitempty"` // a vote's direction: up or down
	Reply     bool    `json:"r,omitempty"` // a comment note: a reply to the reader's comment
	OrderID   int64   `json:"o,omitempty"` // an order note's order
	Status    string  `json:"s,omitempty"` // an order note's new status
	At        float64 `json:"at"`          // Unix seconds
	// Unread is set by Notifications for the notes that were new.
	Unread bool `json:"-"`
}

// notifyScript counts an unread notification by kind and keeps it in the
// capped list, in one step in the user's slot. With a
// coalescing identity (ARGV[4] actor, ARGV[5] article) an earlier note of
// the same kind, actor and article is replaced rather than added to: a
// reader flipping a vote up and down leaves one note, the latest. The
// first N notes of the list are the unread ones (N = the sum of the
// counts), so a replaced note that was unread is not counted again, and
// one that was read is.
var notifyScript = redis.NewScript(`
local counted = true
if ARGV[4] ~= '' then
  local unread = 0
  for _, v in ipairs(redis.call('HVALS', KEYS[1])) do unread = unread + tonumber(v) end
  local notes = redis.call('LRANGE', KEYS[2], 0, -1)
  for i, raw in ipairs(notes) do
    local ok, n = pcall(cjson.decode, raw)
    if ok and n.k == ARGV[1] and n.a == ARGV[4] and tonumber(n.id) == tonumber(ARGV[5]) then
      redis.call('LREM', KEYS[2], 1, raw)
      if i <= unread then counted = false end
      break
    end
  end
end
if counted then redis.call('HINCRBY', KEYS[1], ARGV[1], 1) end
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
return 1`)

// markReadScript takes the counts the reader was shown off the unread
// counts (never below zero), so that a notification arriving between
// showing the page and pressing the button stays unread. ARGV: kind, n
// pairs.
var markReadScript = redis.NewScript(`
for i = 1, #ARGV, 2 do
  local left = redis.call('HINCRBY', KEYS[1], ARGV[i], -tonumber(ARGV[i + 1]))
  if left <= 0 then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
return 1`)

// Notify records a notification for userID. Unknown kinds are platform.ErrInvalid.
func (s *Service) Notify(ctx context.Context, userID int64, n Note) error {
	switch n.Kind {
	case NoteVote, NoteComment, NoteFollower, NoteOrder:
	default:
		return platform.ErrInvalid
	}
	if n.At == 0 {
		n.At = s.clock.Seconds()
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	actor, article := "", ""
	if n.Kind == NoteVote {
		actor, article = n.Actor, strconv.FormatInt(n.ArticleID, 10)
	}
	if err := notifyScript.Run(ctx, s.rdb, []string{keys.Unread(userID), keys.Notes(userID)}, n.Kind, b, notesKept, actor, article).Err(); err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	return nil
}

// NotifyVote tells an article's author about a vote (dir "up" or "down").
// Voting on your own article notifies nobody.
func (s *Service) NotifyVote(ctx context.Context, authorID, voterID int64, voterName string, articleID int64, title, dir string) error {
	if authorID == voterID {
		return nil
	}
	return s.Notify(ctx, authorID, Note{Kind: NoteVote, Actor: voterName, ArticleID: articleID, Title: title, Dir: dir})
}

// NotifyComment tells an article's author about a comment; commenting on
// your own article notifies nobody.
func (s *Service) NotifyComment(ctx context.Context, authorID, commenterID int64, commenterName string, articleID int64, title string) error {
	if authorID == commenterID {
		return nil
	}
	return s.Notify(ctx, authorID, Note{Kind: NoteComment, Actor: commenterName, ArticleID: articleID, Title: title})
}

// NotifyReply tells a comment's author about a reply to it (a comment
// note, counted with the comments); replying to yourself notifies nobody.
func (s *Service) NotifyReply(ctx context.Context, authorID, replierID int64, replierName string, articleID int64, title string) error {
	if authorID == replierID {
		return nil
	}
	return s.Notify(ctx, authorID, Note{Kind: NoteComment, Actor: replierName, ArticleID: articleID, Title: title, Reply: true})
}

// NotifyFollower tells userID that followerName now follows them.
func (s *Service) NotifyFollower(ctx context.Context, userID int64, followerName string) error {
	return s.Notify(ctx, userID, Note{Kind: NoteFollower, Actor: followerName})
}

// Notifications lists userID's recent notifications, newest first, with
// the unread counts by kind; it changes nothing (MarkNotificationsRead
// does). The first notes, as many as are unread, come back with Unread set.
func (s *Service) Notifications(ctx context.Context, userID int64) ([]Note, map[string]int64, error) {
	var list *redis.StringSliceCmd
	var hash *redis.MapStringStringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		list = p.LRange(ctx, keys.Notes(userID), 0, -1)
		hash = p.HGetAll(ctx, keys.Unread(userID))
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("notifications: %w", err)
	}
	counts := map[string]int64{}
	var total int64
	for k, v := range hash.Val() {
		n, _ := strconv.ParseInt(v, 10, 64)
		counts[k] = n
		total += n
	}
	notes := make([]Note, 0, len(list.Val()))
	for _, str := range list.Val() {
		var n Note
		if json.Unmarshal([]byte(str), &n) != nil {
			continue
		}
		n.Unread = int64(len(notes)) < total
		notes = append(notes, n)
	}
	return notes, counts, nil
}

// MarkNotificationsRead clears the unread counts the reader was shown
// (kind -> count, as Notifications returned them); unknown kinds and
// negative counts are platform.ErrInvalid.
func (s *Service) MarkNotificationsRead(ctx context.Context, userID int64, seen map[string]int64) error {
	var args []any
	for _, k := range NoteKinds {
		if n := seen[k]; n > 0 {
			args = append(args, k, n)
		}
	}
	for k, n := range seen {
		if n < 0 || !slices.Contains(NoteKinds, k) {
			return platform.ErrInvalid
		}
	}
	if len(args) == 0 {
		return nil
	}
	if err := markReadScript.Run(ctx, s.rdb, []string{keys.Unread(userID)}, args...).Err(); err != nil {
		return fmt.Errorf("mark notifications read: %w", err)
	}
	return nil
}

// UnreadCounts returns userID's unread notification counts by kind.
func (s *Service) UnreadCounts(ctx context.Context, userID int64) (map[string]int64, error) {
	m, err := s.rdb.HGetAll(ctx, keys.Unread(userID)).Result()
	if err != nil {
		return nil, fmt.Errorf("unread counts: %w", err)
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k], _ = strconv.ParseInt(v, 10, 64)
	}
	return out, nil
}

// NotifyOrder tells the shopper their order changed status; the wiring
// has the orders call it. Guests (userID 0) have no notifications. A
// failure is logged: the change itself is committed and shows on the
// order page.
func (s *Service) NotifyOrder(ctx context.Context, userID, orderID int64, status string) {
	if userID <= 0 {
		return
	}
	if err := s.Notify(ctx, userID, Note{Kind: NoteOrder, Actor: "The shop", OrderID: orderID, Status: status}); err != nil {
		s.log.Warn("order status: notify", "order", orderID, "err", err)
	}
}

// UnreadRead is a queued read of a user's unread count, all kinds.
type UnreadRead struct{ cmd *redis.StringSliceCmd }

// AddUnread queues the read of a user's unread counts on pipe (HVALS:
// only the numbers), so that the session read that fills a page's header
// takes no round trip of its own.
func AddUnread(ctx context.Context, pipe redis.Pipeliner, userID int64) UnreadRead {
	return UnreadRead{cmd: pipe.HVals(ctx, keys.Unread(userID))}
}

// Total is the unread count once the pipeline ran.
func (r UnreadRead) Total() int64 { return sumCounts(r.cmd.Val()) }

// UnreadOf reads a user's unread count through c, the client-side
// caching client of a cached page's read.
func UnreadOf(ctx context.Context, c redis.Cmdable, userID int64) (int64, error) {
	vals, err := c.HVals(ctx, keys.Unread(userID)).Result()
	return sumCounts(vals), err
}

func sumCounts(vals []string) int64 {
	var total int64
	for _, v := range vals {
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
	}
	return total
}
