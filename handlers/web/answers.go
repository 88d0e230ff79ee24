package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
)

// The answers many handlers give in the same way: every form also takes
// JSON clients (Accept: application/json), who get the same words as data.

// Done answers a successful form post: JSON {"message"}, or a flash with
// the message and a 303 to the page to.
func (k *Kit) Done(c echo.Context, msg, to string) error {
	if WantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]string{"message": msg})
	}
	k.SetFlash(c, msg)
	return Redirect(c, to)
}

// Unprocessable refuses a request that made sense but cannot be done: a
// 422 with the message, as JSON {"error"} or on the error page.
func Unprocessable(c echo.Context, msg string) error {
	if WantsJSON(c) {
		return c.JSON(http.StatusUnprocessableEntity, map[string]string{"error": msg})
	}
	return echo.NewHTTPError(http.StatusUnprocessableEntity, msg)
}
