package sessions

import (
	"context"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// RequestReset makes a password reset link for every account whose
// verified address is email (not banned), in one transaction with the
// OnTokenTx listeners' email. For an address no account has, it does the
// same work (a link row for the guest account, the listeners' rendering
// and writing) and rolls it back, so that the answer takes about the same
// time either way and says nothing about which it was.
func (s *Service) RequestReset(ctx context.Context, email string) error {
	rows, err := s.db.QueryContext(ctx, `SELECT id, username FROM users WHERE email_key = $1 AND email_verified_at IS NOT NULL
		AND banned_at IS NULL ORDER BY id`, strings.ToLower(email))
	if err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	var users []User
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Username); err != nil {
			rows.Close()
			return fmt.Errorf("reset: %w", err)
		}
		users = append(users, u)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	known := len(users) > 0
	if !known {
		users = []User{{ID: guestUserID, Username: "guest"}}
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	defer tx.Rollback()
	for _, u := range users {
		if err := s.newToken(ctx, tx, TokenReset, u, email, ResetTTL); err != nil {
			return err
		}
	}
	if !known {
		return nil // rolled back: nothing written, nothing sent
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("reset: %w", err)
	}
	return nil
}

// guestUserID is the orders' guest account (a users row no one signs in
// as), which the unknown address's rolled-back link row refers to.
const guestUserID = 0

// CheckReset reads a reset link without using it, for the form: the
// account's name.
func (s *Service) CheckReset(ctx context.Context, token string) (User, error) {
	t, err := s.readToken(ctx, s.db, TokenReset, token)
	if err != nil {
		return User{}, err
	}
	return s.UserByID(ctx, t.userID)
}

// ResetPassword uses a reset link: in one transaction the link is used,
// every other unused reset link of the account is spent, and the password
// set. Ending every session of the account is the caller's next step
// (EndUserSessions with no session kept). Any refusal changes nothing.
func (s *Service) ResetPassword(ctx context.Context, token, password string) (User, error) {
	hash, err := bcrypt.GenerateFromPassword(passwordInput(password), s.opt.PasswordCost)
	if err != nil {
		return User{}, fmt.Errorf("reset password: %w", err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return User{}, fmt.Errorf("reset password: %w", err)
	}
	defer tx.Rollback()
	t, err := s.useToken(ctx, tx, TokenReset, token)
	if err != nil {
		return User{}, err
	}
	now := s.clock.Now().Unix()
	if _, err := tx.ExecContext(ctx, `UPDATE account_tokens SET used_at = $1 WHERE user_id = $2 AND kind = $3 AND used_at IS NULL`,
		now, t.userID, TokenReset); err != nil {
		return User{}, fmt.Errorf("reset password: %w", err)
	}
	u := User{ID: t.userID}
	if err := tx.QueryRowContext(ctx, `UPDATE users SET password_hash = $1 WHERE id = $2 RETURNING username`, string(hash), t.userID).
		Scan(&u.Username); err != nil {
		return User{}, fmt.Errorf("reset password: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return User{}, fmt.Errorf("reset password: %w", err)
	}
	return u, nil
}
