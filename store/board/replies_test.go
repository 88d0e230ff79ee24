package board_test

import (
	"errors"
	"testing"
	"time"

	"storefront/store/board"
	"storefront/store/platform"
	"storefront/wiring/wiringtest"
)

// TestRepliesOneLevel: a reply to a comment hangs from it; a reply to a
// reply hangs from the comment that started the thread and names whom it
// answered; a reply to a comment that is gone is refused and changes
// nothing.
func TestRepliesOneLevel(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	us := users(t, st, "replier", 3)
	a := post(t, st, us[0], "thread")
	top, err := st.Board.AddComment(ctx, a.ID, us[1].ID, us[1].Username, "top")
	if err != nil {
		t.Fatal(err)
	}
	r1, err := st.Board.AddReply(ctx, a.ID, us[2].ID, us[2].Username, "first reply", top.ID)
	if err != nil || r1.Parent != top.ID || r1.To != "" || r1.ReplyToUserID != us[1].ID {
		t.Fatalf("reply: %+v %v", r1, err)
	}
	r2, err := st.Board.AddReply(ctx, a.ID, us[1].ID, us[1].Username, "reply to the reply", r1.ID)
	if err != nil || r2.Parent != top.ID || r2.To != us[2].Username || r2.ReplyToUserID != us[2].ID {
		t.Fatalf("a reply to a reply: %+v %v", r2, err)
	}
	_, cs, err := st.Board.ArticleWithComments(ctx, a.ID, 0)
	if err != nil || len(cs) != 3 || cs[1].Parent != top.ID || cs[2].Parent != top.ID || cs[2].To != us[2].Username || cs[0].Parent != 0 {
		t.Fatalf("read back: %+v %v", cs, err)
	}
	if _, err := st.Board.AddReply(ctx, a.ID, us[2].ID, us[2].Username, "to nothing", 99); !errors.Is(err, board.ErrReplyGone) {
		t.Fatalf("a reply to a missing comment: %v", err)
	}
	if _, err := st.Board.DeleteComment(ctx, a.ID, r1.ID, us[2].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.AddReply(ctx, a.ID, us[0].ID, us[0].Username, "to a deleted reply", r1.ID); !errors.Is(err, board.ErrReplyGone) {
		t.Fatalf("a reply to a deleted comment: %v", err)
	}
	if _, err := st.Board.HideComment(ctx, a.ID, top.ID); err != nil {
		t.Fatal(err)
	}
	for _, to := range []int64{top.ID, r2.ID} { // the hidden comment, and a reply in its thread
		if _, err := st.Board.AddReply(ctx, a.ID, us[0].ID, us[0].Username, "to a hidden thread", to); !errors.Is(err, board.ErrReplyGone) {
			t.Fatalf("a reply to comment %d of a hidden thread: %v", to, err)
		}
	}
	got, cs, _ := st.Board.ArticleWithComments(ctx, a.ID, 0)
	if len(cs) != 3 || got.Comments != 1 { // three stored, one shown: the reply to the reply
		t.Fatalf("after the refusals: %d stored, %d counted", len(cs), got.Comments)
	}
}

// TestEditAndDeleteComments: a comment's author edits and deletes it
// within EditWindow; nobody else can, nobody can later; a hidden comment
// stays as the moderator found it; a deleted one keeps its place (the
// numbers after it stay), leaves the count, and cannot be hidden, edited
// or deleted again.
func TestEditAndDeleteComments(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	us := users(t, st, "commenter", 2)
	author, other := us[0], us[1]
	a := post(t, st, other, "comments")
	c1, _ := st.Board.AddComment(ctx, a.ID, author.ID, author.Username, "frist")
	c2, _ := st.Board.AddComment(ctx, a.ID, author.ID, author.Username, "second")
	if c1.EditLeft != board.EditWindow {
		t.Fatalf("a new comment has %v to edit", c1.EditLeft)
	}
	if _, err := st.Board.EditComment(ctx, a.ID, c1.ID, other.ID, "first"); !errors.Is(err, board.ErrNotAuthor) {
		t.Fatalf("someone else's edit: %v", err)
	}
	if _, err := st.Board.DeleteComment(ctx, a.ID, c1.ID, other.ID); !errors.Is(err, board.ErrNotAuthor) {
		t.Fatalf("someone else's delete: %v", err)
	}
	later(st, board.EditWindow-time.Second)
	ed, err := st.Board.EditComment(ctx, a.ID, c1.ID, author.ID, "first")
	if err != nil || ed.Body != "first" || ed.Edited.IsZero() {
		t.Fatalf("edit: %+v %v", ed, err)
	}
	_, cs, _ := st.Board.ArticleWithComments(ctx, a.ID, 0)
	if cs[0].Body != "first" || cs[0].Edited.IsZero() || !cs[0].Posted.Equal(c1.Posted) || cs[0].User != author.Username {
		t.Fatalf("read back: %+v (posted %v)", cs[0], c1.Posted)
	}
	if _, err := st.Board.DeleteComment(ctx, a.ID, c1.ID, author.ID); err != nil {
		t.Fatal(err)
	}
	got, cs, _ := st.Board.ArticleWithComments(ctx, a.ID, 0)
	if got.Comments != 1 || len(cs) != 2 || !cs[0].Deleted || cs[0].Body != "" || cs[1].Body != "second" || cs[1].ID != c2.ID {
		t.Fatalf("after the delete: count %d, %+v", got.Comments, cs)
	}
	for name, err := range map[string]error{
		"edit a deleted comment":   second(st.Board.EditComment(ctx, a.ID, c1.ID, author.ID, "back")),
		"delete it again":          second(st.Board.DeleteComment(ctx, a.ID, c1.ID, author.ID)),
		"hide a deleted comment":   second(st.Board.HideComment(ctx, a.ID, c1.ID)),
		"edit a comment not there": second(st.Board.EditComment(ctx, a.ID, 9, author.ID, "x")),
	} {
		if !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if got, _, err := st.Board.ArticleWithComments(ctx, a.ID, 0); err != nil || got.Comments != 1 {
		t.Fatalf("the refusals changed the count to %d (%v)", got.Comments, err)
	}
	later(st, 0)
	if _, err := st.Board.HideComment(ctx, a.ID, c2.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.EditComment(ctx, a.ID, c2.ID, author.ID, "sneaky"); !errors.Is(err, board.ErrHidden) {
		t.Fatalf("the author's edit of a hidden comment: %v", err)
	}
	if _, err := st.Board.DeleteComment(ctx, a.ID, c2.ID, other.ID); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("someone else's delete of a hidden comment: %v", err)
	}
	if _, err := st.Board.UnhideComment(ctx, a.ID, c2.ID); err != nil {
		t.Fatal(err)
	}
	later(st, board.EditWindow)
	if _, err := st.Board.EditComment(ctx, a.ID, c2.ID, author.ID, "too late"); !errors.Is(err, board.ErrEditClosed) {
		t.Fatalf("an edit after the window: %v", err)
	}
	if _, err := st.Board.DeleteComment(ctx, a.ID, c2.ID, author.ID); !errors.Is(err, board.ErrEditClosed) {
		t.Fatalf("a delete after the window: %v", err)
	}
}

// second is the error of a two-valued call.
func second[T any](_ T, err error) error { return err }
