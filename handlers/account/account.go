// Package account answers a visitor's own account: registering, signing in
// and out (the token rotates at sign-in, and a guest's cart and recently
// viewed items come along), changing the password (which signs every other
// device out), the account's email address and its emailed verification
// link (an account made before addresses existed is asked once, after
// signing in), the forgotten password and its emailed reset link, the
// notifications page, and the account page (recent orders, the address
// book, the devices signed in, each of which can be signed out). Tests:
// through the real router in handlers/ (accounts_test.go,
// password_test.go, session_test.go, engage_test.go for notifications,
// mail_test.go for the email address, verification and reset,
// account_page_test.go).
package account

import (
	"context"

	"storefront/handlers/web"
	"storefront/store/notify"
	"storefront/store/ratelimit"
	"storefront/store/sessions"
)

// Accounts is what the area asks of the sessions domain.
type Accounts interface {
	CreateUser(ctx context.Context, username, password string) (sessions.User, error)
	Authenticate(ctx context.Context, username, password string) (sessions.User, error)
	UserByID(ctx context.Context, id int64) (sessions.User, error)
	SignIn(ctx context.Context, oldToken, newToken string, userID int64) (int64, error)
	EndSession(ctx context.Context, token string) error
	ChangePassword(ctx context.Context, userID int64, current, next string) error
	EndUserSessions(ctx context.Context, userID int64, keep string) (int, error)
	EndUserSession(ctx context.Context, userID int64, sid string) error
	NoteDevice(ctx context.Context, userID int64, token, device string) error
	UserSessionList(ctx context.Context, userID int64, current string) ([]sessions.UserSession, error)
	// The email address and the emailed links.
	Register(ctx context.Context, username, password, email string) (sessions.User, error)
	Email(ctx context.Context, userID int64) (sessions.AccountEmail, error)
	AskEmailOnce(ctx context.Context, userID int64) (bool, error)
	SetEmail(ctx context.Context, userID int64, email string) error
	CheckVerify(ctx context.Context, token string, signedIn int64) (string, error)
	VerifyEmail(ctx context.Context, token string, signedIn int64) (string, error)
	RequestReset(ctx context.Context, email string) error
	CheckReset(ctx context.Context, token string) (sessions.User, error)
	ResetPassword(ctx context.Context, token, password string) (sessions.User, error)
	// A staff invitation's link.
	CheckInvite(ctx context.Context, token string) (sessions.Invitation, error)
	AcceptInvite(ctx context.Context, token, username, password string) (sessions.User, error)
}

// Notes is what the notifications page reads and marks.
type Notes interface {
	Notifications(ctx context.Context, userID int64) ([]notify.Note, map[string]int64, error)
	MarkNotificationsRead(ctx context.Context, userID int64, seen map[string]int64) error
}

// Rates are the area's limits.
type Rates struct {
	// Login counts failed sign-ins per (account, client address) and
	// LoginAddr per client address; successful sign-ins are not counted.
	Login, LoginAddr ratelimit.Rate
	// Register counts new accounts per client address, Password the
	// password changes per account.
	Register, Password ratelimit.Rate
	// Forgot counts forgotten-password requests per client address and
	// per typed address; Email the addresses an account sets (each sends
	// a verification link).
	Forgot, Email ratelimit.Rate
}

// Deps are the domains the area reads and changes.
type Deps struct {
	Accounts Accounts
	Notes    Notes
	Book     Book
	History  History
	// TwoFactor is the accounts' two-factor sign-in (the sessions domain).
	TwoFactor TwoFactor
}

// Handler answers the account routes.
type Handler struct {
	rates     Rates
	web       *web.Kit
	accounts  Accounts
	notes     Notes
	book      Book
	history   History
	twoFactor TwoFactor
}

// New builds the account area.
func New(rates Rates, kit *web.Kit, d Deps) *Handler {
	return &Handler{rates: rates, web: kit, accounts: d.Accounts, notes: d.Notes, book: d.Book, history: d.History, twoFactor: d.TwoFactor}
}
