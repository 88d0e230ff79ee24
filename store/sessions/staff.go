package sessions

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"

	"storefront/store/audit"
	"storefront/store/platform"
)

// Why a staff change is refused; nothing changed.
var (
	// ErrLastOwner: the change would leave the shop without an owner.
	ErrLastOwner = errors.New("the shop's last owner cannot be demoted or removed")
	// ErrNotOwner: the one asking is no longer an owner (a change that
	// committed first took it away).
	ErrNotOwner = errors.New("only an owner manages the staff")
)

// StaffMember is an account with a role.
type StaffMember struct {
	ID       int64
	Username string
	Email    string
	Role     Role
}

// Staff lists the accounts with a role, owners first, then by name.
func (s *Service) Staff(ctx context.Context) ([]StaffMember, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, username, COALESCE(email, ''), role FROM users WHERE role <> '' ORDER BY
		CASE role WHEN 'owner' THEN 0 WHEN 'manager' THEN 1 WHEN 'fulfilment' THEN 2 WHEN 'support' THEN 3 ELSE 4 END, username_key`)
	if err != nil {
		return nil, fmt.Errorf("staff: %w", err)
	}
	defer rows.Close()
	var out []StaffMember
	for rows.Next() {
		var m StaffMember
		if err := rows.Scan(&m.ID, &m.Username, &m.Email, &m.Role); err != nil {
			return nil, fmt.Errorf("staff: %w", err)
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// InviteStaff makes an invitation for email to join as role, sent by the
// owner invitedBy: a single-use link the OnTokenTx listeners email in the
// same transaction, valid for InviteTTL. Checking the address is the
// caller's; platform.ErrInvalid for a role nobody has.
func (s *Service) InviteStaff(ctx context.Context, email string, role Role, invitedBy int64) error {
	if _, ok := ParseRole(string(role)); !ok {
		return platform.ErrInvalid
	}
	return platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		id, err := s.newLink(ctx, tx, TokenMail{Kind: TokenInvite, Role: role, UserID: guestUserID, Username: "", Email: email}, InviteTTL, invitedBy)
		if err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "staff.invite", Target: fmt.Sprintf("invitation %d", id),
			After: audit.Fields{"email": email, "role": string(role)}})
	})
}

// Invitation is what an invitation link offers.
type Invitation struct {
	Email string
	Role  Role
}

// CheckInvite reads an invitation link without using it, for its form.
// Every refusal is one of the ErrToken errors.
func (s *Service) CheckInvite(ctx context.Context, token string) (Invitation, error) {
	t, err := s.readToken(ctx, s.db, TokenInvite, token)
	if err != nil {
		return Invitation{}, err
	}
	var inv Invitation
	err = s.db.QueryRowContext(ctx, `SELECT email, role FROM account_tokens WHERE id = $1`, t.id).Scan(&inv.Email, &inv.Role)
	if err != nil {
		return Invitation{}, fmt.Errorf("invitation: %w", err)
	}
	return inv, nil
}

// AcceptInvite uses an invitation link: in one transaction the link is
// used and the staff account made with the invitation's role and address
// (verified: the link came to it). A username taken (platform.ErrConflict)
// or any link refusal changes nothing, and the link still works after the
// former.
func (s *Service) AcceptInvite(ctx context.Context, token, username, password string) (User, error) {
	hash, err := bcrypt.GenerateFromPassword(passwordInput(password), s.opt.PasswordCost)
	if err != nil {
		return User{}, fmt.Errorf("accept invitation: %w", err)
	}
	var u User
	err = platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		t, err := s.useToken(ctx, tx, TokenInvite, token)
		if err != nil {
			return err
		}
		var role Role
		if err := tx.QueryRowContext(ctx, `SELECT role FROM account_tokens WHERE id = $1`, t.id).Scan(&role); err != nil {
			return fmt.Errorf("accept invitation: %w", err)
		}
		if _, ok := ParseRole(string(role)); !ok {
			return ErrTokenInvalid
		}
		now := s.clock.Now().Unix()
		u = User{Username: username, Role: role, IsAdmin: true}
		err = tx.QueryRowContext(ctx, `INSERT INTO users (username, username_key, password_hash, is_admin, role, created_at,
			email, email_key, email_verified_at) VALUES ($1, $2, $3, TRUE, $4, $5, $6, $7, $5)
			ON CONFLICT (username_key) DO NOTHING RETURNING id`,
			username, strings.ToLower(username), string(hash), string(role), now, t.email, strings.ToLower(t.email)).Scan(&u.ID)
		if errors.Is(err, sql.ErrNoRows) {
			return platform.ErrConflict
		}
		if err != nil {
			return fmt.Errorf("accept invitation: %w", err)
		}
		return nil
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}

// SetRole gives staff member userID the role (RoleNone removes them from
// the staff), asked by the owner actorID. It is checked and written in one
// transaction that locks every owner's row (PostgreSQL; SQLite's write
// lock is taken at BEGIN), so of two owners demoting each other at once
// one change waits for the other and is then refused: ErrLastOwner when
// the shop would be left without an owner, ErrNotOwner when the actor was
// demoted first, platform.ErrNotFound for an account without a role. The
// change is audited in the same transaction. Ending the sessions of a
// removed member is the caller's next step (EndUserSessions); the admin
// routes read the role from the database on every request anyway.
func (s *Service) SetRole(ctx context.Context, actorID, userID int64, role Role) (StaffMember, error) {
	if role != RoleNone {
		if _, ok := ParseRole(string(role)); !ok {
			return StaffMember{}, platform.ErrInvalid
		}
	}
	lock := ""
	if platform.KindOf(s.db) == platform.DBPostgres {
		lock = " FOR UPDATE"
	}
	var m StaffMember
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM users WHERE role = 'owner' ORDER BY id`+lock)
		if err != nil {
			return fmt.Errorf("set role: %w", err)
		}
		owners := map[int64]bool{}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("set role: %w", err)
			}
			owners[id] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("set role: %w", err)
		}
		if !owners[actorID] {
			return ErrNotOwner
		}
		err = tx.QueryRowContext(ctx, `SELECT id, username, COALESCE(email, ''), role FROM users WHERE id = $1 AND role <> ''`+lock, userID).
			Scan(&m.ID, &m.Username, &m.Email, &m.Role)
		if errors.Is(err, sql.ErrNoRows) {
			return platform.ErrNotFound
		}
		if err != nil {
			return fmt.Errorf("set role: %w", err)
		}
		if m.Role == RoleOwner && role != RoleOwner && len(owners) == 1 {
			return ErrLastOwner
		}
		if _, err := tx.ExecContext(ctx, `UPDATE users SET role = $1, is_admin = $2 WHERE id = $3`, string(role), role != RoleNone, userID); err != nil {
			return fmt.Errorf("set role: %w", err)
		}
		kind := "staff.role"
		if role == RoleNone {
			kind = "staff.remove"
		}
		before := m.Role
		m.Role = role
		return audit.Record(ctx, tx, audit.Entry{Kind: kind, Target: "user " + m.Username,
			Before: audit.Fields{"role": string(before)}, After: audit.Fields{"role": string(role)}})
	})
	return m, err
}
