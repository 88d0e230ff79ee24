package keys

// The mail worker's lease and report, and the rate limits of the mail an
// account or a visitor can cause.
const (
	LeaseMail       = "mail"         // the outbox's delivery (worker and lease)
	RateForgot      = "forgot"       // forgotten-password requests, per client address
	RateForgotEmail = "forgot-email" // forgotten-password requests, per typed address
	RateEmail       = "email"        // email addresses set (each sends a verification), per account
)
