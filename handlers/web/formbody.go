package web

import (
	"mime"
	"net/http"

	"github.com/labstack/echo/v4"
)

// FormBody answers 415 Unsupported Media Type to a POST whose body is not
// a form (application/x-www-form-urlencoded or multipart/form-data), before
// any handler reads it: every POST route here is a form, and one check for
// all of them means no route binds JSON or anything else by accident. An
// empty post (a bare button) needs no type. It reads no body; answers for
// `Accept: application/json` are unchanged.
func FormBody(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		req := c.Request()
		if req.Method != http.MethodPost {
			return next(c)
		}
		ctype := req.Header.Get(echo.HeaderContentType)
		if ctype == "" && (req.ContentLength == 0 || req.Body == nil || req.Body == http.NoBody) {
			return next(c)
		}
		if mt, _, err := mime.ParseMediaType(ctype); err == nil && (mt == echo.MIMEApplicationForm || mt == echo.MIMEMultipartForm) {
			return next(c)
		}
		return echo.NewHTTPError(http.StatusUnsupportedMediaType,
			"This address takes a form (application/x-www-form-urlencoded or multipart/form-data), not "+describeType(ctype)+".")
	}
}

// describeType names a body's content type for the 415 message, keeping
// it short whatever the client sent.
func describeType(ctype string) string {
	mt, _, err := mime.ParseMediaType(ctype)
	switch {
	case ctype == "":
		return "a body without a content type"
	case err != nil || len(mt) > 64:
		return "that content type"
	}
	return mt
}
