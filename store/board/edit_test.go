package board_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// later moves the store's clock to d after the real time.
func later(st *wiring.Services, d time.Duration) {
	st.SetClock(func() time.Time { return time.Now().Add(d) })
}

// TestEditArticleByItsAuthorOnly: the author changes title, link and body
// within EditWindow (the article says when, the feed entry follows);
// another reader cannot, nobody can after the window, a hidden article
// stays as the moderator found it, and an edit leaving neither link nor
// text is refused.
func TestEditArticleByItsAuthorOnly(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	us := users(t, st, "editor", 2)
	author, other := us[0], us[1]
	a := post(t, st, author, "first words", "care")
	if a.EditLeft != board.EditWindow || !a.Edited.IsZero() {
		t.Fatalf("a new article: %v left to edit, edited %v", a.EditLeft, a.Edited)
	}
	edit := board.ArticleEdit{Title: "Better words", Body: "Now with a text.\n\nTwo paragraphs."}
	if _, err := st.Board.EditArticle(ctx, a.ID, other.ID, edit); !errors.Is(err, board.ErrNotAuthor) {
		t.Fatalf("someone else's edit: %v", err)
	}
	if _, err := st.Board.EditArticle(ctx, a.ID, author.ID, board.ArticleEdit{Title: "No link, no text"}); !errors.Is(err, platform.ErrInvalid) {
		t.Fatalf("an edit with neither link nor text: %v", err)
	}
	if _, err := st.Board.EditArticle(ctx, a.ID+100, author.ID, edit); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("a missing article: %v", err)
	}
	later(st, board.EditWindow-time.Second)
	got, err := st.Board.EditArticle(ctx, a.ID, author.ID, edit)
	if err != nil {
		t.Fatalf("the author's edit in the window's last second: %v", err)
	}
	if got.Title != edit.Title || got.Link != "" || got.Body != edit.Body || got.Edited.IsZero() || got.Up != 1 || got.Score != a.Score {
		t.Fatalf("after the edit: %+v", got)
	}
	read, _, err := st.Board.ArticleWithComments(ctx, a.ID, 0)
	if err != nil || read.Title != edit.Title || read.Body != edit.Body || read.Edited.IsZero() {
		t.Fatalf("read back: %+v %v", read, err)
	}
	if entries := storetest.Must(st.Social.Posts(ctx, []int64{a.ID}))(t); len(entries) != 1 || entries[0].Title != edit.Title || entries[0].Link != "" {
		t.Fatalf("the feed entry after the edit: %+v", entries)
	}
	later(st, board.EditWindow)
	if _, err := st.Board.EditArticle(ctx, a.ID, author.ID, edit); !errors.Is(err, board.ErrEditClosed) {
		t.Fatalf("an edit at the window's end: %v", err)
	}
	if read, _, _ := st.Board.ArticleWithComments(ctx, a.ID, 0); read.EditLeft != 0 {
		t.Fatalf("after the window %v is left to edit", read.EditLeft)
	}

	later(st, 0)
	h := post(t, st, author, "to be hidden")
	if _, err := st.Board.HideArticle(ctx, h.ID, "moderator"); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.EditArticle(ctx, h.ID, author.ID, edit); !errors.Is(err, board.ErrHidden) {
		t.Fatalf("the author's edit of a hidden article: %v", err)
	}
	if _, err := st.Board.EditArticle(ctx, h.ID, other.ID, edit); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("someone else's edit of a hidden article: %v", err)
	}
	if _, err := st.Board.DeleteArticle(ctx, h.ID, author.ID); !errors.Is(err, board.ErrHidden) {
		t.Fatalf("the author's delete of a hidden article: %v", err)
	}
	if read, _, _ := st.Board.ArticleWithComments(ctx, h.ID, author.ID); read.Title != "to be hidden" || read.EditLeft != 0 {
		t.Fatalf("the hidden article changed or offers edits: %+v", read)
	}
}

// TestDeleteArticleLeavesNoTrace: deleting an article that was voted on,
// commented on (one comment hidden), reported and listed in cached group
// listings leaves Redis as it was before it was posted, but for the id
// counter and the notes its author was sent: no listing, group, voter's
// record, moderation list or feed names it.
func TestDeleteArticleLeavesNoTrace(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	us := users(t, st, "deleter", 4)
	author, fan, critic := us[0], us[1], us[2]
	older := post(t, st, us[3], "older", "care")
	vote(t, st, older.ID, critic, "up") // the critic's record keeps this one
	before := redisState(t, st.Redis())

	a := post(t, st, author, "regret", "care", "making")
	vote(t, st, a.ID, fan, "up")
	vote(t, st, a.ID, critic, "down")
	for _, u := range []int64{fan.ID, critic.ID} {
		if _, err := st.Board.AddComment(ctx, a.ID, u, "u"+strconv.FormatInt(u, 10), "a comment"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Board.HideComment(ctx, a.ID, 2); err != nil {
		t.Fatal(err)
	}
	if err := st.Board.ReportPost(ctx, board.NewReport{ArticleID: a.ID, UserID: critic.ID, User: critic.Username, Reason: board.ReasonSpam}); err != nil {
		t.Fatal(err)
	}
	if err := st.Board.ReportPost(ctx, board.NewReport{ArticleID: a.ID, CommentID: 1, UserID: critic.ID, User: critic.Username, Reason: board.ReasonAbuse}); err != nil {
		t.Fatal(err)
	}
	for _, g := range []string{"care", "making"} { // cache the group listings with it
		p := storetest.Must(st.Board.Articles(ctx, board.ArticleQuery{Sort: board.SortTop, Group: g, Page: 1, PerPage: 10}))(t)
		if !slices.ContainsFunc(p.Articles, func(x board.Article) bool { return x.ID == a.ID }) {
			t.Fatalf("group %s lists %+v", g, p.Articles)
		}
	}
	if _, err := st.Board.DeleteArticle(ctx, a.ID, fan.ID); !errors.Is(err, board.ErrNotAuthor) {
		t.Fatalf("someone else's delete: %v", err)
	}
	got, err := st.Board.DeleteArticle(ctx, a.ID, author.ID)
	if err != nil || got.ID != a.ID || got.Title != "regret" {
		t.Fatalf("delete: %+v %v", got, err)
	}
	after := redisState(t, st.Redis())
	var left []string
	for _, d := range diffState(before, after) {
		switch {
		case strings.HasPrefix(d, keys.ArticleSeq+":"), // the id counter moves on
			strings.HasPrefix(d, keys.Notes(author.ID)+":"), strings.HasPrefix(d, keys.Unread(author.ID)+":"),
			strings.HasPrefix(d, keys.UserCounts(author.ID)+": new map[posts:0]"), // the counter, back to 0
			// the group listings this test cached, without it
			(strings.HasPrefix(d, keys.GroupListing("care", false)+": new") || strings.HasPrefix(d, keys.GroupListing("making", false)+": new")) &&
				!strings.Contains(d, " "+strconv.FormatInt(a.ID, 10)+"}"):
		default:
			left = append(left, d)
		}
	}
	if len(left) > 0 {
		t.Fatalf("the deleted article left traces:\n%s", strings.Join(left, "\n"))
	}
	if _, err := st.Board.DeleteArticle(ctx, a.ID, author.ID); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("deleting again: %v", err)
	}
	if _, _, err := st.Board.Vote(ctx, a.ID, fan.ID, board.VoteUp); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("a vote on a deleted article: %v", err)
	}
	later(st, board.EditWindow)
	late := post(t, st, author, "posted long ago")
	later(st, 2*board.EditWindow)
	if _, err := st.Board.DeleteArticle(ctx, late.ID, author.ID); !errors.Is(err, board.ErrEditClosed) {
		t.Fatalf("a delete after the window: %v", err)
	}
}

// TestDeleteArticleWhileVoting: readers vote while the author deletes the
// article; whatever the order, no reader's own record of votes names it
// afterwards, and it is in no listing.
func TestDeleteArticleWhileVoting(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	us := users(t, st, "racer", 12)
	for round := range 3 {
		a := post(t, st, us[0], "race "+strconv.Itoa(round), "outdoors")
		var wg sync.WaitGroup
		for _, u := range us[1:] {
			wg.Go(func() {
				for _, dir := range []string{board.VoteUp, board.VoteDown, board.VoteUp} {
					if _, _, err := st.Board.Vote(ctx, a.ID, u.ID, dir); err != nil && !errors.Is(err, platform.ErrNotFound) {
						t.Errorf("vote: %v", err)
					}
				}
			})
		}
		wg.Go(func() {
			if _, err := st.Board.DeleteArticle(ctx, a.ID, us[0].ID); err != nil {
				t.Errorf("delete: %v", err)
			}
		})
		wg.Wait()
		id := strconv.FormatInt(a.ID, 10)
		for _, u := range us {
			if v := st.Redis().HGet(ctx, keys.MyVotes(u.ID), id).Val(); v != "" {
				t.Fatalf("round %d: reader %d's record still holds a %s vote on the deleted article %d: %v", round, u.ID, v, a.ID, st.Redis().HGetAll(ctx, keys.MyVotes(u.ID)).Val())
			}
		}
		for _, k := range []string{keys.ArticleScores, keys.ArticleTimes} {
			if err := st.Redis().ZScore(ctx, k, id).Err(); !errors.Is(err, redis.Nil) {
				t.Fatalf("round %d: %s still lists it", round, k)
			}
		}
	}
}
