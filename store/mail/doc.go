// Package mail owns the email outbox: messages written in the transaction
// of the change that causes them (Enqueue takes the caller's *sql.Tx, so a
// rolled-back order or token leaves no mail), and the worker that delivers
// them over SMTP (SMTP_URL, through wneessen/go-mail) with retries and
// exponential backoff. It also checks the email addresses the shop accepts
// (ParseAddress). It renders nothing: the wiring hands it subject, text and
// HTML made from the views' templates.
//
// Table: outbox (one row per message; its Message-ID is fixed when the row
// is written; link_ref names its single-use link, if any). Redis keys: the `mail` lease, so one instance across the
// shop delivers at a time, and the `mail` worker report.
//
// Invariants: a message is sent at most once. The worker claims a row
// (a conditional update that also counts the attempt) before it speaks
// SMTP, and marks it sent once the server accepted it. A failure the
// server or the network makes certain (refused connection, a 4xx/5xx
// reply, a drop before the end of the data) returns the row to the queue
// after a backoff (MailRetryBase doubled per attempt, at most
// MailRetryMax), or fails it: a 5xx, or MaxAttempts reached. A delivery
// that may have reached the server (the connection dropped while the
// server was answering the end of the data) and a claim that outlived its
// worker (a crash between sending and marking) are marked failed, not
// retried: at most once, never twice, and the admin's outbox shows why.
// Recording that the server took a message is tried again while the
// database fails (a dropped connection), until the claim would expire, so
// a delivered message is marked sent, not failed as interrupted.
//
// Single-use links (a password reset, an address confirmation) are never
// stored readable: the bodies hold LinkSecret where the token goes, the
// row names the link (link_ref), and the LinkMaker the wiring sets (the
// accounts) makes the token as the message is sent, replacing any made
// before. The outbox page shows the placeholder; only the email that
// reached the server carries a working link.
//
// The admin sends a failed message again (Resend): it is queued afresh,
// once however often that is asked; a message not failed is left alone.
// Without SMTP_URL, rows are written as kept and never sent; the admin's
// outbox shows them as they would have gone out.
//
// Tests: mail_test.go (a real SMTP server from emersion/go-smtp started by
// the test: delivery, an outage in the middle, two workers at once, the
// interrupted claim, backoff, addresses), record_test.go (a connection
// dropped while marking a delivered message); the same-transaction guarantee
// with orders and accounts in wiring/mail_test.go; the pages in
// handlers/mail_test.go.
package mail
