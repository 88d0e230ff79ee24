package mail_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"storefront/store/mail"
	"storefront/store/storetest"
)

// TestLinkMadeWhenSent: a message with a single-use link is stored with
// the placeholder and reaches the server with the token made as it was
// sent; a link that can no longer be used fails its message unsent.
func TestLinkMadeWhenSent(t *testing.T) {
	srv := startSMTP(t)
	b := storetest.Base(t)
	s := newOutbox(t, b, srv.url())
	made := 0
	s.MakeLinksWith(func(_ context.Context, ref int64) (string, error) {
		if ref == 2 {
			return "", mail.ErrLinkGone
		}
		made++
		return "7.made-at-sending", nil
	})
	ctx := t.Context()
	tx, err := b.DB.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := "Open https://shop.test/password/reset?token=" + mail.LinkSecret
	var ids []int64
	for ref := int64(1); ref <= 2; ref++ {
		id, err := s.Enqueue(ctx, tx, mail.Message{Kind: "password-reset", To: "ada@example.com", Subject: fmt.Sprint("Reset ", ref),
			Text: body, HTML: `<a href="` + body + `">`, Link: ref})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	s.PassWithoutLease(ctx)
	sent, err := s.Entry(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	if sent.Status != mail.StatusSent || sent.Link != 1 || sent.Text != body || strings.Contains(sent.HTML, "made-at-sending") {
		t.Fatalf("the sent message as stored: %+v", sent)
	}
	msgs := srv.messages()
	if len(msgs) != 1 || made != 1 || !strings.Contains(strings.ReplaceAll(msgs[0].Raw, "=3D", "="), "token=7.made-at-sending") ||
		strings.Contains(msgs[0].Raw, mail.LinkSecret) {
		t.Fatalf("the server took %d messages (%d links made): %v", len(msgs), made, msgs)
	}
	gone, err := s.Entry(ctx, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	if gone.Status != mail.StatusFailed || !strings.Contains(gone.LastError, "used or expired") {
		t.Fatalf("a message whose link is gone: %s %q", gone.Status, gone.LastError)
	}
}
