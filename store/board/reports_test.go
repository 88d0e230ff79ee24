package board_test

import (
	"errors"
	"testing"

	"storefront/store/board"
	"storefront/store/platform"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// openReports reads the moderators' list: thing ref -> the reasons of its
// reports, oldest first.
func openReports(t *testing.T, st *wiring.Services) map[string][]string {
	t.Helper()
	things, total, err := st.Board.OpenReports(t.Context(), 100)
	if err != nil {
		t.Fatal(err)
	}
	if int(total) != len(things) {
		t.Fatalf("%d open, %d listed", total, len(things))
	}
	out := map[string][]string{}
	for _, th := range things {
		for _, r := range th.Reports {
			out[th.Ref] = append(out[th.Ref], r.User+":"+r.Reason)
		}
	}
	return out
}

// TestReports: readers report an article and a comment once each (not
// their own); moderators see them with their reasons; dismissing closes a
// thing's reports (a later report shows alone), hiding closes them, and a
// thing that is hidden or deleted cannot be reported.
func TestReports(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	us := users(t, st, "reporter", 4)
	author, r1, r2, r3 := us[0], us[1], us[2], us[3]
	a := post(t, st, author, "reported")
	c, _ := st.Board.AddComment(ctx, a.ID, r1.ID, r1.Username, "buy my pans")
	report := func(u int, comment int64, reason string) error {
		return st.Board.ReportPost(ctx, board.NewReport{ArticleID: a.ID, CommentID: comment, UserID: us[u].ID, User: us[u].Username, Reason: reason, Note: "see"})
	}
	if err := report(1, 0, board.ReasonOffTopic); err != nil {
		t.Fatal(err)
	}
	if err := report(2, c.ID, board.ReasonSpam); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		err  error
		want error
	}{
		"twice by one reader":  {report(1, 0, board.ReasonSpam), board.ErrReported},
		"the author's own":     {report(0, 0, board.ReasonSpam), board.ErrOwnPost},
		"a commenter's own":    {report(1, c.ID, board.ReasonSpam), board.ErrOwnPost},
		"a missing comment":    {report(2, 9, board.ReasonSpam), platform.ErrNotFound},
		"an unknown reason":    {report(3, 0, "boring"), platform.ErrInvalid},
		"a missing article":    {st.Board.ReportPost(ctx, board.NewReport{ArticleID: a.ID + 9, UserID: r3.ID, Reason: board.ReasonSpam}), platform.ErrNotFound},
		"no comment number -1": {st.Board.ReportPost(ctx, board.NewReport{ArticleID: a.ID, CommentID: -1, UserID: r3.ID, Reason: board.ReasonSpam}), platform.ErrInvalid},
	} {
		if !errors.Is(tc.err, tc.want) {
			t.Errorf("%s: %v, want %v", name, tc.err, tc.want)
		}
	}
	if err := report(3, c.ID, board.ReasonAbuse); err != nil {
		t.Fatal(err)
	}
	aref, cref := board.ThingRef(a.ID, 0), board.ThingRef(a.ID, c.ID)
	got := openReports(t, st)
	if len(got) != 2 || len(got[aref]) != 1 || got[aref][0] != r1.Username+":offtopic" ||
		len(got[cref]) != 2 || got[cref][0] != r2.Username+":spam" || got[cref][1] != r3.Username+":abuse" {
		t.Fatalf("open reports: %v", got)
	}
	things, _, _ := st.Board.OpenReports(ctx, 10)
	for _, th := range things {
		if th.Ref == cref && (th.Text != "buy my pans" || th.Author != r1.Username || th.Title != "reported" || th.Reports[0].Note != "see") {
			t.Errorf("the reported comment reads %+v", th)
		}
	}

	// Dismissed: off the list; the same readers cannot report it again,
	// a new one can, and only the new report shows.
	if err := st.Board.DismissReports(ctx, aref); err != nil {
		t.Fatal(err)
	}
	if err := st.Board.DismissReports(ctx, aref); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("dismissing twice: %v", err)
	}
	if err := report(1, 0, board.ReasonSpam); !errors.Is(err, board.ErrReported) {
		t.Fatalf("a second report after a dismissal: %v", err)
	}
	if err := report(2, 0, board.ReasonSpam); err != nil {
		t.Fatal(err)
	}
	if got := openReports(t, st); len(got[aref]) != 1 || got[aref][0] != r2.Username+":spam" {
		t.Fatalf("after the dismissal and a new report: %v", got)
	}
	for _, bad := range []string{"", "0", "x", "01", "1-0", "1-", "-1", "1-2-3", "+1"} {
		if err := st.Board.DismissReports(ctx, bad); !errors.Is(err, platform.ErrNotFound) {
			t.Errorf("dismiss %q: %v", bad, err)
		}
	}

	// Hidden: closed, and no more reports of it.
	if _, err := st.Board.HideComment(ctx, a.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.HideArticle(ctx, a.ID, "moderator"); err != nil {
		t.Fatal(err)
	}
	if got := openReports(t, st); len(got) != 0 {
		t.Fatalf("hiding left reports open: %v", got)
	}
	if err := report(3, 0, board.ReasonSpam); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("reporting a hidden article: %v", err)
	}
	if _, err := st.Board.UnhideComment(ctx, a.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.UnhideArticle(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if got := openReports(t, st); len(got) != 0 {
		t.Fatalf("showing again reopened reports: %v", got)
	}

	// Deleted by its author: its open reports go with it.
	c2, _ := st.Board.AddComment(ctx, a.ID, r1.ID, r1.Username, "regret")
	if err := report(2, c2.ID, board.ReasonAbuse); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Board.DeleteComment(ctx, a.ID, c2.ID, r1.ID); err != nil {
		t.Fatal(err)
	}
	if err := report(3, c2.ID, board.ReasonAbuse); !errors.Is(err, platform.ErrNotFound) {
		t.Fatalf("reporting a deleted comment: %v", err)
	}
	if got := openReports(t, st); len(got) != 0 {
		t.Fatalf("a deleted comment's reports stayed open: %v", got)
	}
}
