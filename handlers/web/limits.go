package web

import (
	"fmt"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/store/ratelimit"
	"storefront/views"
)

// Limit counts one event for subject under the named rate (a keys.Rate*
// name) and returns a *RateLimited error when over it.
func (k *Kit) Limit(c echo.Context, name, subject string, r ratelimit.Rate, msg string) error {
	_, err := k.Admit(c, name, subject, r, msg)
	return err
}

// Admit counts one event under a rate limit and returns the admission (to
// refund it later) or a *RateLimited error when over the limit.
func (k *Kit) Admit(c echo.Context, name, subject string, r ratelimit.Rate, msg string) (ratelimit.Admission, error) {
	a, err := k.deps.Limiter.Allow(c.Request().Context(), name, subject, r)
	if err != nil {
		return a, err
	}
	if !a.Allowed {
		return a, newRateLimited(a.RetryAfter, msg)
	}
	return a, nil
}

// Refund gives back an event Admit counted (sign-in counts failures only).
func (k *Kit) Refund(c echo.Context, a ratelimit.Admission) error {
	return k.deps.Limiter.Refund(c.Request().Context(), a)
}

// RateLimited is the error for an event over its limit: the error handler
// answers 429 with Retry-After; a handler may show Message by its form.
type RateLimited struct {
	RetryAfter int // seconds
	Message    string
}

func (e *RateLimited) Error() string { return e.Message }

// newRateLimited is the error for an event over its limit, with the wait
// rounded up to whole seconds.
func newRateLimited(wait time.Duration, msg string) *RateLimited {
	secs := max(int((wait+time.Second-1)/time.Second), 1)
	return &RateLimited{RetryAfter: secs, Message: fmt.Sprintf("%s Try again in %s.", msg, humanWait(secs))}
}

func humanWait(secs int) string {
	if secs < 90 {
		return views.Counted(int64(max(secs, 1)), "second", "seconds")
	}
	return views.Counted(int64((secs+59)/60), "minute", "minutes")
}
