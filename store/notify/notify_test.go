package notify_test

import (
	"errors"
	"sync"
	"testing"

	"storefront/store/notify"
	"storefront/store/platform"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

func TestNotificationsCountAndClear(t *testing.T) {
	st := wiringtest.New(t)
	wiringtest.Ticking(st)
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(st.Notify.NotifyVote(ctx, 1, 2, "bob", 10, "Hello", "up"))
	must(st.Notify.NotifyVote(ctx, 1, 1, "alice", 10, "Hello", "up")) // own article: nothing
	must(st.Notify.NotifyComment(ctx, 1, 3, "carol", 10, "Hello"))
	must(st.Notify.NotifyComment(ctx, 1, 3, "carol", 10, "Hello"))
	must(st.Notify.NotifyFollower(ctx, 1, "dave"))
	if err := st.Notify.Notify(ctx, 1, notify.Note{Kind: "spam"}); !errors.Is(err, platform.ErrInvalid) {
		t.Errorf("unknown kind: %v", err)
	}
	counts, err := st.Notify.UnreadCounts(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if counts[notify.NoteVote] != 1 || counts[notify.NoteComment] != 2 || counts[notify.NoteFollower] != 1 {
		t.Errorf("unread %v", counts)
	}
	notes, read, err := st.Notify.Notifications(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 4 || notes[0].Kind != notify.NoteFollower || notes[0].Actor != "dave" || notes[3].Kind != notify.NoteVote ||
		notes[3].ArticleID != 10 || notes[3].Dir != "up" || !notes[3].Unread {
		t.Errorf("notes %+v", notes)
	}
	if read[notify.NoteComment] != 2 {
		t.Errorf("counts as read: %v", read)
	}
	// Reading shows; it changes nothing.
	if counts = storetest.Must(st.Notify.UnreadCounts(ctx, 1))(t); counts[notify.NoteComment] != 2 || counts[notify.NoteVote] != 1 {
		t.Errorf("after showing: %v", counts)
	}
	// Marking read clears what was shown; a note that arrived after the
	// page was shown stays unread.
	must(st.Notify.NotifyFollower(ctx, 1, "zed"))
	must(st.Notify.MarkNotificationsRead(ctx, 1, read))
	if counts = storetest.Must(st.Notify.UnreadCounts(ctx, 1))(t); len(counts) != 1 || counts[notify.NoteFollower] != 1 {
		t.Errorf("after marking read: %v", counts)
	}
	must(st.Notify.MarkNotificationsRead(ctx, 1, map[string]int64{notify.NoteFollower: 1}))
	must(st.Notify.NotifyFollower(ctx, 1, "erin"))
	notes, _, _ = st.Notify.Notifications(ctx, 1)
	if len(notes) != 6 || !notes[0].Unread || notes[1].Unread {
		t.Errorf("only the newest is new: %+v", notes)
	}
}

func TestNotificationsCappedUnderLoad(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	var wg sync.WaitGroup
	for range 80 {
		wg.Go(func() {
			if err := st.Notify.NotifyFollower(ctx, 5, "someone"); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	notes, counts, err := st.Notify.Notifications(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if counts[notify.NoteFollower] != 80 || len(notes) != 50 {
		t.Errorf("%d counted, %d kept; want 80 and 50", counts[notify.NoteFollower], len(notes))
	}
}

func TestSessionCarriesUnreadCount(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	if _, err := st.Sessions.SignIn(ctx, "", "tok", 7); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := st.Notify.NotifyFollower(ctx, 7, "x"); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Notify.NotifyFollower(ctx, 8, "x"); err != nil {
		t.Fatal(err)
	}
	state, err := st.Sessions.LoadSession(ctx, "tok", 7)
	if err != nil || state.UserID != 7 || state.Unread != 3 {
		t.Errorf("session %+v (%v), want user 7 with 3 unread", state, err)
	}
	// A cookie that claims someone else gets nobody's count.
	if state := storetest.Must(st.Sessions.LoadSession(ctx, "tok", 8))(t); state.Unread != 0 {
		t.Errorf("claimed user 8 on 7's session: unread %d", state.Unread)
	}
	if state, _, _ := st.Sessions.SessionWithRecent(ctx, "tok", 7); state.Unread != 3 {
		t.Errorf("item page session: unread %d", state.Unread)
	}
}

// TestVoteFlipFlopsCoalesce: a reader flipping a vote again and again
// leaves one notification per article and reader, the latest direction,
// counted once while unread.
func TestVoteFlipFlopsCoalesce(t *testing.T) {
	st := wiringtest.New(t)
	wiringtest.Ticking(st)
	ctx := t.Context()
	dirs := []string{"up", "down"}
	for i := range 14 {
		if err := st.Notify.NotifyVote(ctx, 1, 2, "bob", 10, "Hello", dirs[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Notify.NotifyVote(ctx, 1, 3, "carol", 10, "Hello", "up"); err != nil {
		t.Fatal(err)
	}
	if err := st.Notify.NotifyVote(ctx, 1, 2, "bob", 11, "Other", "up"); err != nil {
		t.Fatal(err)
	}
	notes, counts, err := st.Notify.Notifications(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(notes) != 3 || counts[notify.NoteVote] != 3 {
		t.Fatalf("%d notes, %d unread; want 3 and 3: %+v", len(notes), counts[notify.NoteVote], notes)
	}
	if notes[2].Actor != "bob" || notes[2].ArticleID != 10 || notes[2].Dir != "down" || !notes[2].Unread {
		t.Errorf("bob's note on 10: %+v", notes[2])
	}
	// Once read, a new flip is one new unread note, at the top.
	if err := st.Notify.MarkNotificationsRead(ctx, 1, counts); err != nil {
		t.Fatal(err)
	}
	if err := st.Notify.NotifyVote(ctx, 1, 2, "bob", 10, "Hello", "up"); err != nil {
		t.Fatal(err)
	}
	notes, counts, _ = st.Notify.Notifications(ctx, 1)
	if len(notes) != 3 || counts[notify.NoteVote] != 1 || !notes[0].Unread || notes[0].Dir != "up" || notes[0].ArticleID != 10 || notes[1].Unread {
		t.Errorf("after a flip once read: %d unread, %+v", counts[notify.NoteVote], notes)
	}
}
