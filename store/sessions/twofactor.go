package sessions

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// TOTP parameters: RFC 6238's defaults, which every authenticator app
// reads (SHA-1, 6 digits, 30-second steps). A code of the step before or
// after the server's is accepted too, for clocks a little apart.
const (
	totpPeriod = 30
	totpSkew   = 1
)

// TwoFactor is an account's two-factor state.
type TwoFactor struct {
	Enabled bool
	// Sealed is the TOTP secret as stored: sealed by the HTTP layer with
	// a key the database does not hold.
	Sealed string
	// RecoveryLeft is how many recovery codes are still unused.
	RecoveryLeft int
}

// TwoFactor reads the account's two-factor state.
func (s *Service) TwoFactor(ctx context.Context, userID int64) (TwoFactor, error) {
	var t TwoFactor
	err := s.db.QueryRowContext(ctx, `SELECT secret_sealed FROM user_totp WHERE user_id = $1`, userID).Scan(&t.Sealed)
	if errors.Is(err, sql.ErrNoRows) {
		return TwoFactor{}, nil
	}
	if err != nil {
		return TwoFactor{}, fmt.Errorf("two-factor of %d: %w", userID, err)
	}
	t.Enabled = true
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM user_recovery_codes WHERE user_id = $1 AND used_at IS NULL`, userID).Scan(&t.RecoveryLeft); err != nil {
		return TwoFactor{}, fmt.Errorf("two-factor of %d: %w", userID, err)
	}
	return t, nil
}

// EnableTwoFactor turns two-factor sign-in on with the sealed secret and
// the recovery codes (kept only as digests). An account that has it on
// already is refused with platform.ErrConflict: a second set-up racing the
// first cannot replace the secret the first confirmed.
func (s *Service) EnableTwoFactor(ctx context.Context, userID int64, sealed string, codes []string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("enable two-factor: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT INTO user_totp (user_id, secret_sealed, enabled_at) VALUES ($1, $2, $3)
		ON CONFLICT (user_id) DO NOTHING`, userID, sealed, s.clock.Now().Unix())
	if err != nil {
		return fmt.Errorf("enable two-factor: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return platform.ErrConflict
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM user_recovery_codes WHERE user_id = $1`, userID); err != nil {
		return fmt.Errorf("enable two-factor: %w", err)
	}
	for _, c := range codes {
		if _, err := tx.ExecContext(ctx, `INSERT INTO user_recovery_codes (user_id, code_hash) VALUES ($1, $2)`, userID, recoveryHash(userID, c)); err != nil {
			return fmt.Errorf("enable two-factor: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("enable two-factor: %w", err)
	}
	return nil
}

// DisableTwoFactor turns two-factor sign-in off and forgets the secret
// and the recovery codes.
func (s *Service) DisableTwoFactor(ctx context.Context, userID int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("disable two-factor: %w", err)
	}
	defer tx.Rollback()
	for _, q := range []string{`DELETE FROM user_recovery_codes WHERE user_id = $1`, `DELETE FROM user_totp WHERE user_id = $1`} {
		if _, err := tx.ExecContext(ctx, q, userID); err != nil {
			return fmt.Errorf("disable two-factor: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("disable two-factor: %w", err)
	}
	return nil
}

// NormalRecoveryCode is a typed recovery code as stored: upper case,
// without the spaces and dashes people add.
func NormalRecoveryCode(code string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ' || r == '-':
			return -1
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		}
		return r
	}, code)
}

// recoveryHash is what is kept of a recovery code. The codes are random
// (50 bits each), so a plain digest salted with the account cannot be
// reversed by guessing, and a slow password hash would buy nothing.
func recoveryHash(userID int64, code string) string {
	sum := sha256.Sum256([]byte(strconv.FormatInt(userID, 10) + ":" + NormalRecoveryCode(code)))
	return hex.EncodeToString(sum[:])
}

// UseRecoveryCode spends one of the account's recovery codes: true if it
// was one and unused. A code is spent by one conditional update, so two
// sign-ins racing with the same code cannot both pass.
func (s *Service) UseRecoveryCode(ctx context.Context, userID int64, code string) (bool, error) {
	if len(code) > 64 {
		return false, nil
	}
	res, err := s.db.ExecContext(ctx, `UPDATE user_recovery_codes SET used_at = $1 WHERE user_id = $2 AND code_hash = $3 AND used_at IS NULL`,
		s.clock.Now().Unix(), userID, recoveryHash(userID, code))
	if err != nil {
		return false, fmt.Errorf("recovery code: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// CheckTOTP reports whether code is the user's authenticator code for
// the current time step or one next to it, and that step was not used
// before: the step is marked used in Redis (SET NX) until it can no
// longer be accepted, so a code seen over a shoulder or replayed from a
// log signs in nobody else, on any instance.
func (s *Service) CheckTOTP(ctx context.Context, userID int64, secret, code string) (bool, error) {
	code = strings.TrimSpace(code)
	if len(code) != 6 {
		return false, nil
	}
	now := s.clock.Now()
	step := now.Unix() / totpPeriod
	for d := -totpSkew; d <= totpSkew; d++ {
		at := time.Unix((step+int64(d))*totpPeriod, 0)
		want, err := totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
		if err != nil {
			return false, fmt.Errorf("totp: %w", err)
		}
		if subtle.ConstantTimeCompare([]byte(want), []byte(code)) != 1 {
			continue
		}
		// The step stays acceptable until the server's clock is skew
		// steps past it.
		ttl := time.Duration((2*totpSkew+2)*totpPeriod) * time.Second
		fresh, err := s.rdb.SetNX(ctx, keys.TOTPUsed(userID, step+int64(d)), 1, ttl).Result()
		if err != nil {
			return false, fmt.Errorf("totp: %w", err)
		}
		return fresh, nil
	}
	return false, nil
}

// SaveTwoFactorSetup keeps a set-up in progress (sealed) for ttl.
func (s *Service) SaveTwoFactorSetup(ctx context.Context, userID int64, sealed string, ttl time.Duration) error {
	if err := s.rdb.Set(ctx, keys.TwoFactorSetup(userID), sealed, ttl).Err(); err != nil {
		return fmt.Errorf("two-factor set-up: %w", err)
	}
	return nil
}

// TwoFactorSetup reads the set-up in progress, "" for none.
func (s *Service) TwoFactorSetup(ctx context.Context, userID int64) (string, error) {
	v, err := s.rdb.Get(ctx, keys.TwoFactorSetup(userID)).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("two-factor set-up: %w", err)
	}
	return v, nil
}

// DropTwoFactorSetup forgets the set-up in progress.
func (s *Service) DropTwoFactorSetup(ctx context.Context, userID int64) error {
	if err := s.rdb.Del(ctx, keys.TwoFactorSetup(userID)).Err(); err != nil {
		return fmt.Errorf("two-factor set-up: %w", err)
	}
	return nil
}

// StartPendingSignIn remembers, for ttl, that the browser holding handle
// passed the password step as userID, to go to next afterwards.
func (s *Service) StartPendingSignIn(ctx context.Context, handle string, userID int64, next string, ttl time.Duration) error {
	if err := s.rdb.Set(ctx, keys.TwoFactorPending(handle), strconv.FormatInt(userID, 10)+" "+next, ttl).Err(); err != nil {
		return fmt.Errorf("pending sign-in: %w", err)
	}
	return nil
}

// PendingSignIn reads the pending sign-in of handle:
// platform.ErrNotFound when there is none (never started, expired, done).
func (s *Service) PendingSignIn(ctx context.Context, handle string) (userID int64, next string, err error) {
	v, err := s.rdb.Get(ctx, keys.TwoFactorPending(handle)).Result()
	if errors.Is(err, redis.Nil) {
		return 0, "", platform.ErrNotFound
	}
	if err != nil {
		return 0, "", fmt.Errorf("pending sign-in: %w", err)
	}
	id, next, _ := strings.Cut(v, " ")
	userID, err = strconv.ParseInt(id, 10, 64)
	if err != nil {
		return 0, "", platform.ErrNotFound
	}
	return userID, next, nil
}

// EndPendingSignIn forgets the pending sign-in of handle: true if this
// call ended it (of two racing second steps, one signs in).
func (s *Service) EndPendingSignIn(ctx context.Context, handle string) (bool, error) {
	n, err := s.rdb.Del(ctx, keys.TwoFactorPending(handle)).Result()
	if err != nil {
		return false, fmt.Errorf("pending sign-in: %w", err)
	}
	return n == 1, nil
}
