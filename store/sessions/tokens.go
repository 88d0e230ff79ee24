package sessions

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kinds of emailed single-use links.
const (
	TokenVerify = "verify" // confirms the account's email address
	TokenReset  = "reset"  // sets a new password
	TokenInvite = "invite" // makes a staff account (staff.go)
)

// How long a link works.
const (
	ResetTTL  = time.Hour
	VerifyTTL = 48 * time.Hour
	InviteTTL = 7 * 24 * time.Hour
)

// Why a link is refused; nothing changed.
var (
	// ErrTokenInvalid: not a link the shop made (tampered, cut short,
	// unknown, or of the other kind).
	ErrTokenInvalid = errors.New("link not valid")
	ErrTokenUsed    = errors.New("link already used")
	ErrTokenExpired = errors.New("link expired")
	// ErrTokenOtherAccount: a verification link of another account than
	// the one signed in.
	ErrTokenOtherAccount = errors.New("link of another account")
)

// TokenMail is a new link to email, as the OnTokenTx listeners hear of it
// inside the transaction that made it.
type TokenMail struct {
	ID   int64  // the link's row: ReissueToken makes its token again
	Kind string // TokenVerify, TokenReset or TokenInvite
	// Role is an invitation's role (TokenInvite only).
	Role     Role
	UserID   int64
	Username string
	Email    string
	Token    string // the link's token parameter
	Expires  time.Time
}

// OnTokenTx registers a listener that writes inside the transaction that
// makes a link (the wiring queues the email there). An error rolls the
// link (and the account or address change with it) back.
func (s *Service) OnTokenTx(f func(ctx context.Context, tx *sql.Tx, m TokenMail) error) {
	s.tokenTx = append(s.tokenTx, f)
}

// newToken writes a link for the account inside tx and tells the
// listeners. The token is "<row id>.<secret>": 256 random bits of which
// only the SHA-256 is stored, so a link cannot be made or altered without
// the shop, and a leaked table gives no working link.
func (s *Service) newToken(ctx context.Context, tx *sql.Tx, kind string, u User, email string, ttl time.Duration) error {
	_, err := s.newLink(ctx, tx, TokenMail{Kind: kind, UserID: u.ID, Username: u.Username, Email: email}, ttl, 0)
	return err
}

// newLink writes the link m describes (its kind, account, address and,
// for an invitation, role) inside tx, expiring after ttl, and tells the
// listeners; invitedBy is the staff member who sent an invitation. It
// returns the link's row.
func (s *Service) newLink(ctx context.Context, tx *sql.Tx, m TokenMail, ttl time.Duration, invitedBy int64) (int64, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return 0, fmt.Errorf("token: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(raw[:])
	now := s.clock.Now()
	m.Expires = now.Add(ttl).Truncate(time.Second)
	var id int64
	err := tx.QueryRowContext(ctx, `INSERT INTO account_tokens (user_id, kind, secret_sum, email, created_at, expires_at, role, invited_by)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`, m.UserID, m.Kind, secretSum(secret), m.Email, now.Unix(), m.Expires.Unix(),
		string(m.Role), invitedBy).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("token: %w", err)
	}
	m.ID, m.Token = id, strconv.FormatInt(id, 10)+"."+secret
	for _, f := range s.tokenTx {
		if err := f(ctx, tx, m); err != nil {
			return 0, fmt.Errorf("token mail: %w", err)
		}
	}
	return id, nil
}

// ReissueToken makes a new token for link id, which still works (unused,
// not expired), and returns it; the link's earlier token stops working.
// The outbox calls it as it sends the link's email, so the token exists
// only in the message that left: no stored copy of the message holds a
// working link. ErrTokenExpired: the link was used or expired.
func (s *Service) ReissueToken(ctx context.Context, id int64) (string, error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("reissue token: %w", err)
	}
	secret := base64.RawURLEncoding.EncodeToString(raw[:])
	res, err := s.db.ExecContext(ctx, `UPDATE account_tokens SET secret_sum = $1 WHERE id = $2 AND used_at IS NULL AND expires_at > $3`,
		secretSum(secret), id, s.clock.Now().Unix())
	if err != nil {
		return "", fmt.Errorf("reissue token: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", fmt.Errorf("reissue token: %w", err)
	} else if n == 0 {
		return "", ErrTokenExpired
	}
	return strconv.FormatInt(id, 10) + "." + secret, nil
}

func secretSum(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// usedToken is a link found valid and used inside tx.
type usedToken struct {
	id, userID int64
	email      string
}

// useToken checks a link of kind inside tx and marks it used: of two
// requests with one link, one gets it (the update is conditional on the
// link being unused). Every refusal is one of the ErrToken errors.
func (s *Service) useToken(ctx context.Context, tx *sql.Tx, kind, token string) (usedToken, error) {
	t, err := s.readToken(ctx, tx, kind, token)
	if err != nil {
		return t, err
	}
	res, err := tx.ExecContext(ctx, `UPDATE account_tokens SET used_at = $1 WHERE id = $2 AND used_at IS NULL`, s.clock.Now().Unix(), t.id)
	if err != nil {
		return t, fmt.Errorf("use token: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return t, fmt.Errorf("use token: %w", err)
	} else if n == 0 {
		return t, ErrTokenUsed
	}
	return t, nil
}

// readToken checks a link of kind without using it. q is the database or
// a transaction.
func (s *Service) readToken(ctx context.Context, q interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}, kind, token string) (usedToken, error) {
	idText, secret, ok := strings.Cut(token, ".")
	id, err := strconv.ParseInt(idText, 10, 64)
	if !ok || err != nil || id <= 0 || len(secret) != 43 {
		return usedToken{}, ErrTokenInvalid
	}
	t := usedToken{id: id}
	var sum, gotKind string
	var expires int64
	var used sql.NullInt64
	err = q.QueryRowContext(ctx, `SELECT user_id, kind, secret_sum, email, expires_at, used_at FROM account_tokens WHERE id = $1`, id).
		Scan(&t.userID, &gotKind, &sum, &t.email, &expires, &used)
	if errors.Is(err, sql.ErrNoRows) {
		return t, ErrTokenInvalid
	}
	if err != nil {
		return t, fmt.Errorf("token: %w", err)
	}
	// The secret decides before anything about the link is told.
	if subtle.ConstantTimeCompare([]byte(sum), []byte(secretSum(secret))) != 1 || gotKind != kind {
		return t, ErrTokenInvalid
	}
	switch {
	case used.Valid:
		return t, ErrTokenUsed
	case s.clock.Now().Unix() >= expires:
		return t, ErrTokenExpired
	}
	return t, nil
}
