package sessions

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"storefront/store/platform"
)

// AdminUsername is the account that may use /admin.
const AdminUsername = "admin"

// User is a shopper or reader account.
type User struct {
	ID       int64
	Username string
	// IsAdmin is "has a staff role": Role is not RoleNone.
	IsAdmin bool
	// Role is what the account may do in /admin (RoleNone for a shopper).
	Role Role
	// Banned is set once an admin banned the account.
	Banned bool
}

// ErrBadCredentials means the username or the password is wrong; callers
// must not say which.
var ErrBadCredentials = errors.New("wrong username or password")

// makeDummyHash makes the hash compared against when the username does not
// exist, at the store's cost, so that a wrong username costs the same time
// as a wrong password.
func (s *Service) makeDummyHash() []byte {
	h, err := bcrypt.GenerateFromPassword(passwordInput("not-a-real-password"), s.opt.PasswordCost)
	if err != nil {
		panic("bcrypt: " + err.Error()) // only for a bad cost, a programming error
	}
	return h
}

// passwordInput is what bcrypt hashes: the base64 of the password's
// SHA-256. bcrypt refuses passwords over 72 bytes and would ignore the
// rest; the digest lets every allowed password (up to 128 characters, so
// up to 512 bytes) count in full, and base64 keeps NUL bytes out.
func passwordInput(password string) []byte {
	sum := sha256.Sum256([]byte(password))
	return []byte(base64.StdEncoding.EncodeToString(sum[:]))
}

// CreateUser registers an account. Usernames are unique ignoring case
// (platform.ErrConflict). Validation of the form is the caller's.
func (s *Service) CreateUser(ctx context.Context, username, password string) (User, error) {
	return s.createUser(ctx, username, password, false, s.opt.PasswordCost)
}

func (s *Service) createUser(ctx context.Context, username, password string, admin bool, cost int) (User, error) {
	hash, err := bcrypt.GenerateFromPassword(passwordInput(password), cost)
	if err != nil {
		return User{}, fmt.Errorf("create user: %w", err)
	}
	role := RoleNone
	if admin {
		role = RoleOwner // the account made on first start is the first owner
	}
	u := User{Username: username, IsAdmin: admin, Role: role}
	err = s.db.QueryRowContext(ctx,
		`INSERT INTO users (username, username_key, password_hash, is_admin, role, created_at) VALUES ($1, $2, $3, $4, $5, $6)
		 ON CONFLICT (username_key) DO NOTHING RETURNING id`,
		username, strings.ToLower(username), string(hash), admin, string(role), s.clock.Now().Unix()).Scan(&u.ID)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, platform.ErrConflict
	}
	if err != nil {
		return User{}, fmt.Errorf("create user: %w", err)
	}
	return u, nil
}

// EnsureAdmin creates the admin account with the password unless it
// exists, and reports whether it did.
func (s *Service) EnsureAdmin(ctx context.Context, password string) (bool, error) {
	_, err := s.createUser(ctx, AdminUsername, password, true, s.opt.PasswordCost)
	if errors.Is(err, platform.ErrConflict) {
		return false, nil
	}
	return err == nil, err
}

// Authenticate checks a username and password. Both kinds of mistake
// return ErrBadCredentials after the same bcrypt work.
func (s *Service) Authenticate(ctx context.Context, username, password string) (User, error) {
	var u User
	var hash string
	var banned sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT id, username, role, password_hash, banned_at FROM users WHERE username_key = $1`,
		strings.ToLower(username)).Scan(&u.ID, &u.Username, &u.Role, &hash, &banned)
	u.IsAdmin = u.Role != RoleNone
	if errors.Is(err, sql.ErrNoRows) {
		_ = bcrypt.CompareHashAndPassword(s.dummyHash(), passwordInput(password))
		return User{}, ErrBadCredentials
	}
	if err != nil {
		return User{}, fmt.Errorf("authenticate: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), passwordInput(password)) != nil {
		return User{}, ErrBadCredentials
	}
	// Only someone with the password learns that the account is banned.
	if banned.Valid {
		u.Banned = true
		return u, platform.ErrBanned
	}
	return u, nil
}

// UserByID reads an account.
func (s *Service) UserByID(ctx context.Context, id int64) (User, error) {
	var u User
	var banned sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT id, username, role, banned_at FROM users WHERE id = $1`, id).Scan(&u.ID, &u.Username, &u.Role, &banned)
	u.Banned, u.IsAdmin = banned.Valid, u.Role != RoleNone
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, platform.ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("user %d: %w", id, err)
	}
	return u, nil
}

// UserByName reads an account by username, ignoring case.
func (s *Service) UserByName(ctx context.Context, name string) (User, error) {
	var u User
	var banned sql.NullInt64
	err := s.db.QueryRowContext(ctx, `SELECT id, username, role, banned_at FROM users WHERE username_key = $1`, strings.ToLower(name)).Scan(&u.ID, &u.Username, &u.Role, &banned)
	u.Banned, u.IsAdmin = banned.Valid, u.Role != RoleNone
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, platform.ErrNotFound
	}
	if err != nil {
		return User{}, fmt.Errorf("user %q: %w", name, err)
	}
	return u, nil
}

// ChangePassword sets a new password after checking the current one
// (ErrBadCredentials when it is wrong, after the same bcrypt work). Ending
// the account's other sessions is the caller's next step
// (EndUserSessions), so that it can keep the session it acts from.
func (s *Service) ChangePassword(ctx context.Context, userID int64, current, next string) error {
	var hash string
	err := s.db.QueryRowContext(ctx, `SELECT password_hash FROM users WHERE id = $1`, userID).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return platform.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("change password: %w", err)
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), passwordInput(current)) != nil {
		return ErrBadCredentials
	}
	nh, err := bcrypt.GenerateFromPassword(passwordInput(next), s.opt.PasswordCost)
	if err != nil {
		return fmt.Errorf("change password: %w", err)
	}
	// Conditional on the hash we checked: of two changes racing with the
	// same current password, one applies and the other is refused.
	res, err := s.db.ExecContext(ctx, `UPDATE users SET password_hash = $1 WHERE id = $2 AND password_hash = $3`, string(nh), userID, hash)
	if err != nil {
		return fmt.Errorf("change password: %w", err)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrBadCredentials
	}
	return nil
}

// UsersByID reads accounts by id; unknown ids are left out.
func (s *Service) UsersByID(ctx context.Context, ids []int64) (map[int64]User, error) {
	out := make(map[int64]User, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	ph, args := platform.InList(1, ids)
	rows, err := s.db.QueryContext(ctx, `SELECT id, username, role FROM users WHERE id IN (`+ph+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("users: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var u User
		if err := rows.Scan(&u.ID, &u.Username, &u.Role); err != nil {
			return nil, fmt.Errorf("users: %w", err)
		}
		u.IsAdmin = u.Role != RoleNone
		out[u.ID] = u
	}
	return out, rows.Err()
}

// EnsureDemoUser returns the named account, creating it with a password
// nobody ever learns (128 random bits) if it does not exist: the demo
// board's posters and voters. Nobody guesses such a password, so it is
// hashed at bcrypt's lowest cost: at the default cost ten of these took
// most of an instance's start-up.
func (s *Service) EnsureDemoUser(ctx context.Context, name string) (User, error) {
	u, err := s.createUser(ctx, name, platform.RandomHex(16), false, bcrypt.MinCost)
	if errors.Is(err, platform.ErrConflict) {
		u, err = s.UserByName(ctx, name)
	}
	return u, err
}
