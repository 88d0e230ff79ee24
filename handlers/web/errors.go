package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/views"
)

// errorPage holds the friendly words for each status we send.
var errorPage = map[int]views.ErrorData{
	http.StatusBadRequest:            {Title: "That request did not make sense", Message: "Something in the address or the form was not valid."},
	http.StatusForbidden:             {Title: "Not allowed", Message: "You do not have access to this page."},
	http.StatusNotFound:              {Title: "Page not found", Message: "We could not find what you were looking for. It may have moved or never existed."},
	http.StatusMethodNotAllowed:      {Title: "Not allowed", Message: "That action is not supported here."},
	http.StatusGone:                  {Title: "No longer sold", Message: "This item has been taken off sale. Past orders still show it."},
	http.StatusRequestEntityTooLarge: {Title: "Too much data", Message: "The form you sent was too large."},
	http.StatusUnsupportedMediaType:  {Title: "Not a form", Message: "This address takes a web form."},
	http.StatusUnprocessableEntity:   {Title: "Please check the form", Message: "Some fields need another look."},
	http.StatusTooManyRequests:       {Title: "Slow down a little", Message: "You have done that too often. Please wait a moment and try again."},
	http.StatusInternalServerError:   {Title: "Something went wrong", Message: "We hit a problem showing this page. It has been logged; please try again."},
	http.StatusServiceUnavailable:    {Title: "We'll be right back", Message: "The shop is briefly unavailable. Please try again in a few seconds."},
}

// ErrorHandler is Echo's HTTPErrorHandler: it picks the status, logs
// server errors with the request id and renders a friendly page (or JSON
// for JSON clients). Internal error text never reaches the client.
func (k *Kit) ErrorHandler(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	if ClientGone(c.Request().Context(), err) {
		// Nobody waits for a page: the status is for the log and the
		// metrics, where a client going away is not a server error.
		c.Response().WriteHeader(StatusClientClosedRequest)
		return
	}
	status, msg := http.StatusInternalServerError, ""
	var he *echo.HTTPError
	var rl *RateLimited
	var tooMany *sessions.TooManySessionsError
	if errors.As(err, &tooMany) {
		rl = newRateLimited(tooMany.RetryAfter, "Too many new visitors from your address.")
		err = rl
	}
	switch {
	case errors.As(err, &rl):
		status, msg = http.StatusTooManyRequests, rl.Message
		c.Response().Header().Set("Retry-After", strconv.Itoa(rl.RetryAfter))
	case errors.As(err, &he):
		status = he.Code
		// Echo's own errors (no route, wrong method) carry only the status
		// text, which would repeat the page's title in other words.
		if m, ok := he.Message.(string); ok && status < 500 && m != http.StatusText(status) {
			msg = m
		}
	case errors.Is(err, platform.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, platform.ErrGone):
		status = http.StatusGone
	case errors.Is(err, platform.ErrBanned):
		status, msg = http.StatusForbidden, BannedMessage
	case platform.IsUnavailable(err):
		status = http.StatusServiceUnavailable
	}
	if status == http.StatusServiceUnavailable {
		c.Response().Header().Set("Retry-After", "5")
	}
	if status >= 500 {
		k.log.Error("request failed", "status", status, "method", c.Request().Method, "uri", c.Request().RequestURI,
			"id", c.Response().Header().Get(echo.HeaderXRequestID), "err", err)
	}
	NoStore(c)
	data, ok := errorPage[status]
	if !ok {
		data = views.ErrorData{Title: http.StatusText(status), Message: "That did not work."}
	}
	data.Status = status
	if msg != "" {
		data.Message = msg
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if WantsJSON(c) {
		_ = c.JSON(status, map[string]string{"error": data.Message})
		return
	}
	// The request's context may be past its deadline (that may be why we
	// are here); the error page must still render.
	k.sessionForErrorPage(c)
	c.SetRequest(c.Request().WithContext(context.WithoutCancel(c.Request().Context())))
	if rerr := Render(c, status, views.ErrorPage(k.Chrome(c, data.Title), data)); rerr != nil {
		k.log.Error("render error page", "err", rerr)
		_ = c.String(status, fmt.Sprintf("%d %s", status, data.Title))
	}
}

// StatusClientClosedRequest is the status logged for a request whose
// client went away before the answer was ready (nginx's 499).
const StatusClientClosedRequest = 499

// ClientGone reports whether err came from the request's client going
// away (its connection closed, so the server cancelled the request's
// context) rather than from the shop: the context was cancelled, not timed
// out (the request's own deadline is a 503), and the failure is the
// cancellation or a connection it cut short.
func ClientGone(ctx context.Context, err error) bool {
	if err == nil || !errors.Is(ctx.Err(), context.Canceled) {
		return false
	}
	return errors.Is(err, context.Canceled) || platform.IsUnavailable(err)
}

// BadRequest is a 400 with a message the user can act on.
func BadRequest(msg string) error { return echo.NewHTTPError(http.StatusBadRequest, msg) }

// NotFound is a 404 with a message.
func NotFound(msg string) error { return echo.NewHTTPError(http.StatusNotFound, msg) }

// BannedMessage is what a banned account is told when it tries to sign in
// or check out.
const BannedMessage = "This account has been suspended by the shop's administrators. Your orders are kept; contact us if you think this is a mistake."
