package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
)

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

// Notify records a notification for userID. Unknown kinds are ErrInvalid.
func (s *Store) Notify(ctx context.Context, userID int64, n Note) error {
	switch n.Kind {
	case NoteVote, NoteComment, NoteFollower, NoteOrder:
	default:
		return ErrInvalid
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
func (s *Store) NotifyVote(ctx context.Context, authorID, voterID int64, voterName string, articleID int64, title, dir string) error {
	if authorID == voterID {
		return nil
	}
	return s.Notify(ctx, authorID, Note{Kind: NoteVote, Actor: voterName, ArticleID: articleID, Title: title, Dir: dir})
}

// NotifyComment tells an article's author about a comment; commenting on
// your own article notifies nobody.
func (s *Store) NotifyComment(ctx context.Context, authorID, commenterID int64, commenterName string, articleID int64, title string) error {
	if authorID == commenterID {
		return nil
	}
	return s.Notify(ctx, authorID, Note{Kind: NoteComment, Actor: commenterName, ArticleID: articleID, Title: title})
}

// NotifyFollower tells userID that followerName now follows them.
func (s *Store) NotifyFollower(ctx context.Context, userID int64, followerName string) error {
	return s.Notify(ctx, userID, Note{Kind: NoteFollower, Actor: followerName})
}

// Notifications lists userID's recent notifications, newest first, with
// the unread counts by kind; it changes nothing (MarkNotificationsRead
// does). The first notes, as many as are unread, come back with Unread set.
func (s *Store) Notifications(ctx context.Context, userID int64) ([]Note, map[string]int64, error) {
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
// negative counts are ErrInvalid.
func (s *Store) MarkNotificationsRead(ctx context.Context, userID int64, seen map[string]int64) error {
	var args []any
	for _, k := range NoteKinds {
		if n := seen[k]; n > 0 {
			args = append(args, k, n)
		}
	}
	for k, n := range seen {
		if n < 0 || !slices.Contains(NoteKinds, k) {
			return ErrInvalid
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
func (s *Store) UnreadCounts(ctx context.Context, userID int64) (map[string]int64, error) {
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

// addUnreadTotal queues the read of a user's unread counts (HVALS: only
// the numbers), for the session pipeline; unreadTotal sums them.
func (s *Store) addUnreadTotal(ctx context.Context, pipe redis.Pipeliner, userID int64) *redis.StringSliceCmd {
	return pipe.HVals(ctx, keys.Unread(userID))
}

func unreadTotal(cmd *redis.StringSliceCmd) int64 {
	var total int64
	for _, v := range cmd.Val() {
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
	}
	return total
}
