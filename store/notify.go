package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Notification kinds: votes and comments on your articles, new followers.
const (
	NoteVote     = "vote"
	NoteComment  = "comment"
	NoteFollower = "follower"
)

// NoteKinds lists the kinds in the order pages show them.
var NoteKinds = []string{NoteVote, NoteComment, NoteFollower}

// Note is one notification: who (Actor) did what (Kind) to which article.
type Note struct {
	Kind      string  `json:"k"`
	Actor     string  `json:"a"`
	ArticleID int64   `json:"id,omitempty"`
	Title     string  `json:"t,omitempty"`
	Dir       string  `json:"d,omitempty"` // a vote's direction: up or down
	At        float64 `json:"at"`          // Unix seconds
	// Unread is set by Notifications for the notes that were new.
	Unread bool `json:"-"`
}

// notifyScript counts an unread notification by kind and keeps it in the
// capped list, in one step in the user's slot (seed 004: 讯息通知).
var notifyScript = redis.NewScript(`
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('LPUSH', KEYS[2], ARGV[2])
redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[3]) - 1)
return 1`)

// readNotesScript returns the recent notes and the unread counts and
// clears the counts, atomically: a notification arriving meanwhile is
// either listed as new now or counted for next time, never lost.
var readNotesScript = redis.NewScript(`
local notes = redis.call('LRANGE', KEYS[2], 0, -1)
local unread = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
return {notes, unread}`)

// Notify records a notification for userID. Unknown kinds are ErrInvalid.
func (s *Store) Notify(ctx context.Context, userID int64, n Note) error {
	switch n.Kind {
	case NoteVote, NoteComment, NoteFollower:
	default:
		return ErrInvalid
	}
	if n.At == 0 {
		n.At = s.nowSeconds()
	}
	b, err := json.Marshal(n)
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	if err := notifyScript.Run(ctx, s.rdb, []string{unreadKey(userID), notesKey(userID)}, n.Kind, b, notesKept).Err(); err != nil {
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
// the unread counts by kind, and marks everything read. The first notes,
// as many as were unread, come back with Unread set.
func (s *Store) Notifications(ctx context.Context, userID int64) ([]Note, map[string]int64, error) {
	res, err := readNotesScript.Run(ctx, s.rdb, []string{unreadKey(userID), notesKey(userID)}).Slice()
	if err != nil {
		return nil, nil, fmt.Errorf("notifications: %w", err)
	}
	raw, _ := res[0].([]any)
	pairs, _ := res[1].([]any)
	counts := map[string]int64{}
	var total int64
	for i := 0; i+1 < len(pairs); i += 2 {
		k, _ := pairs[i].(string)
		v, _ := pairs[i+1].(string)
		n, _ := strconv.ParseInt(v, 10, 64)
		counts[k] = n
		total += n
	}
	notes := make([]Note, 0, len(raw))
	for _, r := range raw {
		str, _ := r.(string)
		var n Note
		if json.Unmarshal([]byte(str), &n) != nil {
			continue
		}
		n.Unread = int64(len(notes)) < total
		notes = append(notes, n)
	}
	return notes, counts, nil
}

// UnreadCounts returns userID's unread notification counts by kind.
func (s *Store) UnreadCounts(ctx context.Context, userID int64) (map[string]int64, error) {
	m, err := s.rdb.HGetAll(ctx, unreadKey(userID)).Result()
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
	return pipe.HVals(ctx, unreadKey(userID))
}

func unreadTotal(cmd *redis.StringSliceCmd) int64 {
	var total int64
	for _, v := range cmd.Val() {
		n, _ := strconv.ParseInt(v, 10, 64)
		total += n
	}
	return total
}
