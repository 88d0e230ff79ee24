package admin

import (
	"encoding/csv"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// Every CSV the admin downloads is written through csvExport, which
// neutralises cells a spreadsheet would run as a formula: one starting
// with =, +, -, @, a tab or a carriage return gets a leading apostrophe
// (the import takes it off again, so an export imports unchanged).

// formulaStart are the first characters that make a spreadsheet read a
// cell as a formula.
const formulaStart = "=+-@\t\r"

// safeCell is a cell as exported: neutralised when it could be a formula.
func safeCell(s string) string {
	if s != "" && strings.ContainsRune(formulaStart, rune(s[0])) {
		return "'" + s
	}
	return s
}

// unsafeCell undoes safeCell for an imported cell.
func unsafeCell(s string) string {
	if len(s) > 1 && s[0] == '\'' && strings.ContainsRune(formulaStart, rune(s[1])) {
		return s[1:]
	}
	return s
}

// csvExport answers a CSV download named filename: the header row, then
// every row each gives. The answer is streamed; an error after the first
// bytes went out cuts the download short (the client sees it fail).
func csvExport(c echo.Context, filename string, header []string, each func(row func([]string) error) error) error {
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, "text/csv; charset=utf-8")
	res.Header().Set(echo.HeaderContentDisposition, `attachment; filename="`+filename+`"`)
	res.Header().Set("Cache-Control", "no-store")
	res.WriteHeader(http.StatusOK)
	w := csv.NewWriter(res)
	row := func(cells []string) error {
		safe := make([]string, len(cells))
		for i, s := range cells {
			safe[i] = safeCell(s)
		}
		return w.Write(safe)
	}
	if err := row(header); err != nil {
		return err
	}
	if err := each(row); err != nil {
		return err
	}
	w.Flush()
	return w.Error()
}
