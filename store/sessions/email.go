package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"storefront/store/platform"
)

// AccountEmail is an account's address and where it stands.
type AccountEmail struct {
	Email    string // "" if the account has none
	Verified bool
	// Asked is set once an account made before addresses existed was
	// asked for one after signing in.
	Asked bool
}

// Register creates an account with its email address and, in the same
// transaction, the verification link the OnTokenTx listeners email.
// Usernames are unique ignoring case (platform.ErrConflict); checking the
// form, the address included, is the caller's.
func (s *Service) Register(ctx context.Context, username, password, email string) (User, error) {
	hash, err := bcrypt.GenerateFromPassword(passwordInput(password), s.opt.PasswordCost)
	if err != nil {
		return User{}, fmt.Errorf("register: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return User{}, fmt.Errorf("register: %w", err)
	}
	defer tx.Rollback()
	u := User{Username: username}
	err = tx.QueryRowContext(ctx,
		`INSERT INTO users (username, username_key, password_hash, is_admin, created_at, email, email_key) VALUES ($1, $2, $3, $4, $5, $6, $7)
		 ON CONFLICT (username_key) DO NOTHING RETURNING id`,
		username, strings.ToLower(username), string(hash), false, s.clock.Now().Unix(), email, strings.ToLower(email)).Scan(&u.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, platform.ErrConflict
	}
	if err != nil {
		return User{}, fmt.Errorf("register: %w", err)
	}
	if err := s.newToken(ctx, tx, TokenVerify, u, email, VerifyTTL); err != nil {
		return User{}, err
	}
	if err := tx.Commit(); err != nil {
		return User{}, fmt.Errorf("register: %w", err)
	}
	return u, nil
}

// Email reads an account's address and whether it is verified.
func (s *Service) Email(ctx context.Context, userID int64) (AccountEmail, error) {
	var e sql.NullString
	var verified, asked sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT email, email_verified_at, email_asked_at FROM users WHERE id = $1`, userID).Scan(&e, &verified, &asked)
	if errors.Is(err, sql.ErrNoRows) {
		return AccountEmail{}, platform.ErrNotFound
	}
	if err != nil {
		return AccountEmail{}, fmt.Errorf("email of %d: %w", userID, err)
	}
	return AccountEmail{Email: e.String, Verified: verified.Valid && e.String != "", Asked: asked.Valid}, nil
}

// AskEmailOnce reports whether the account should be asked for an address
// now: it has none and was never asked. It records the asking, so of two
// sign-ins at once one asks.
func (s *Service) AskEmailOnce(ctx context.Context, userID int64) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE users SET email_asked_at = $1 WHERE id = $2 AND email IS NULL AND email_asked_at IS NULL`,
		s.clock.Now().Unix(), userID)
	if err != nil {
		return false, fmt.Errorf("ask email: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// SetEmail gives the account a new, unverified address and, in the same
// transaction, a verification link for it.
func (s *Service) SetEmail(ctx context.Context, userID int64, email string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("set email: %w", err)
	}
	defer tx.Rollback()
	u := User{ID: userID}
	err = tx.QueryRowContext(ctx, `UPDATE users SET email = $1, email_key = $2, email_verified_at = NULL WHERE id = $3 RETURNING username`,
		email, strings.ToLower(email), userID).Scan(&u.Username)
	if errors.Is(err, sql.ErrNoRows) {
		return platform.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("set email: %w", err)
	}
	if err := s.newToken(ctx, tx, TokenVerify, u, email, VerifyTTL); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("set email: %w", err)
	}
	return nil
}

// CheckVerify reads a verification link without using it: the account it
// is for and the address it confirms.
func (s *Service) CheckVerify(ctx context.Context, token string, signedIn int64) (string, error) {
	t, err := s.readToken(ctx, s.db, TokenVerify, token)
	if err == nil && signedIn > 0 && t.userID != signedIn {
		err = ErrTokenOtherAccount
	}
	return t.email, err
}

// VerifyEmail uses a verification link: the account's address is
// verified if it is still the one the link was sent to (else
// ErrTokenInvalid). signedIn > 0 is the account signed in where the link
// is used: another account's link is ErrTokenOtherAccount. Any refusal
// changes nothing.
func (s *Service) VerifyEmail(ctx context.Context, token string, signedIn int64) (string, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("verify email: %w", err)
	}
	defer tx.Rollback()
	t, err := s.useToken(ctx, tx, TokenVerify, token)
	if err != nil {
		return "", err
	}
	if signedIn > 0 && t.userID != signedIn {
		return "", ErrTokenOtherAccount
	}
	res, err := tx.ExecContext(ctx, `UPDATE users SET email_verified_at = $1 WHERE id = $2 AND email = $3`, s.clock.Now().Unix(), t.userID, t.email)
	if err != nil {
		return "", fmt.Errorf("verify email: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil {
		return "", fmt.Errorf("verify email: %w", err)
	} else if n == 0 {
		return "", ErrTokenInvalid // the account has changed its address since
	}
	if err := tx.Commit(); err != nil {
		return "", fmt.Errorf("verify email: %w", err)
	}
	return t.email, nil
}

// EmailTx reads an account's address inside another domain's transaction
// (the order emails find their recipient there); "" if it has none.
func EmailTx(ctx context.Context, tx *sql.Tx, userID int64) (string, error) {
	var e sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT email FROM users WHERE id = $1`, userID).Scan(&e)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("email of %d: %w", userID, err)
	}
	return e.String, nil
}
