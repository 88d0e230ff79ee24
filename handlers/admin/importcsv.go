package admin

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/store/merchant"
	"storefront/views"
)

// maxImportProblems is how many wrong rows an import refusal lists.
const maxImportProblems = 100

// requiredColumns must be in an import's header; the rest of
// itemsCSVHeader may be.
var requiredColumns = []string{"sku", "name", "category", "price", "stock"}

// skuRE is a SKU: letters, digits, dashes, dots and underscores.
var skuRE = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// importCheck collects the wrong rows of an import.
type importCheck struct {
	problems []views.ImportProblem
	more     int
}

func (ic *importCheck) add(row int, reason string) {
	if len(ic.problems) < maxImportProblems {
		ic.problems = append(ic.problems, views.ImportProblem{Row: row, Reason: reason})
	} else {
		ic.more++
	}
}

// wrong reports whether any row is wrong.
func (ic *importCheck) wrong() bool { return len(ic.problems) > 0 || ic.more > 0 }

// merge adds the rows the catalog refused, keeping every report in row
// order.
func (ic *importCheck) merge(rows []catalog.RowProblem) {
	for _, p := range rows {
		ic.add(p.Line, importRefusal[p.Err]+".")
	}
	slices.SortStableFunc(ic.problems, func(a, b views.ImportProblem) int { return a.Row - b.Row })
}

// parseItemsCSV reads a catalog import: a UTF-8 CSV file (a byte order
// mark is skipped) with a header row naming its columns in any order.
// Every row is checked, and every wrong one reported by its number in the
// file as a spreadsheet counts (the header is row 1). It returns the rows
// that are right, for the catalog's own checks, and the wrong ones. A
// cell the export neutralised ('=...) is read without its apostrophe.
func parseItemsCSV(cur merchant.Currency, data []byte) ([]catalog.ImportRow, *importCheck) {
	ic := &importCheck{}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if errors.Is(err, io.EOF) {
		ic.add(0, "The file is empty: it needs a header row and at least one item.")
		return nil, ic
	}
	if err != nil {
		ic.add(1, csvTrouble(err))
		return nil, ic
	}
	cols := readHeader(header, ic)
	seen := map[string]int{} // SKU in lower case -> its first row
	var rows []catalog.ImportRow
	for n := 2; ; n++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			ic.add(n, csvTrouble(err)+" Nothing after it was read.")
			break
		}
		if cols == nil {
			continue // the header is wrong: its rows cannot be read
		}
		row, why := readImportRow(cur, rec, len(header), cols)
		// SKUs are unique whatever their case, as in the catalog.
		if first, dup := seen[strings.ToLower(row.SKU)]; dup && row.SKU != "" {
			why = append(why, fmt.Sprintf("SKU %s is also on row %d", row.SKU, first))
		} else if row.SKU != "" {
			seen[strings.ToLower(row.SKU)] = n
		}
		if len(why) > 0 {
			ic.add(n, strings.Join(why, "; ")+".")
			continue
		}
		row.Line = n
		rows = append(rows, row)
	}
	if len(rows) == 0 && len(ic.problems) == 0 && ic.more == 0 {
		ic.add(0, "The file has no rows under its header.")
	}
	return rows, ic
}

// csvTrouble words a CSV syntax error.
func csvTrouble(err error) string {
	if errors.Is(err, csv.ErrQuote) || errors.Is(err, csv.ErrBareQuote) {
		return "A quote is out of place (a cell with quotes must be quoted whole, its quotes doubled)."
	}
	return "The row is not valid CSV."
}

// readHeader maps the header's column names to their positions; nil when
// a column is missing, unknown or repeated (each reported on row 1).
func readHeader(header []string, ic *importCheck) map[string]int {
	cols := map[string]int{}
	ok := true
	for i, h := range header {
		name := strings.ToLower(strings.TrimSpace(h))
		switch {
		case !utf8.ValidString(h):
			ic.add(1, "The header is not UTF-8 text: save the file as CSV in UTF-8.")
			return nil
		case !slices.Contains(itemsCSVHeader, name):
			ic.add(1, fmt.Sprintf("Unknown column %q: the columns are %s.", name, strings.Join(itemsCSVHeader, ", ")))
			ok = false
		case cols[name] > 0:
			ic.add(1, fmt.Sprintf("Column %s appears twice.", name))
			ok = false
		}
		cols[name] = i + 1 // 1-based, so 0 means absent
	}
	for _, req := range requiredColumns {
		if cols[req] == 0 {
			ic.add(1, "Missing column "+req+".")
			ok = false
		}
	}
	if !ok {
		return nil
	}
	return cols
}

// readImportRow reads a row and says everything wrong with it.
func readImportRow(cur merchant.Currency, rec []string, width int, cols map[string]int) (catalog.ImportRow, []string) {
	if len(rec) != width {
		return catalog.ImportRow{}, []string{fmt.Sprintf("the row has %d cells; the header has %d", len(rec), width)}
	}
	for _, cell := range rec {
		if !utf8.ValidString(cell) {
			return catalog.ImportRow{}, []string{"the row is not UTF-8 text: save the file as CSV in UTF-8"}
		}
	}
	cell := func(name string) string {
		if cols[name] == 0 {
			return ""
		}
		return strings.TrimSpace(unsafeCell(rec[cols[name]-1]))
	}
	row := catalog.ImportRow{SKU: cell("sku"), Name: cell("name"), Category: cell("category"), Description: cell("description")}
	var why []string
	if !skuRE.MatchString(row.SKU) {
		why = append(why, "sku: use 1 to 64 letters, digits, dashes, dots or underscores")
	}
	if l := utf8.RuneCountInString(row.Name); l < 1 || l > 200 || !web.Printable(row.Name) {
		why = append(why, "name: use 1 to 200 characters, on one line")
	}
	if !validCategory(row.Category) {
		why = append(why, "category: use 1 to 50 characters, on one line")
	}
	var ok bool
	if row.PriceCents, ok = parsePrice(cur, cell("price")); !ok {
		why = append(why, fmt.Sprintf("price: %q is not a price in %s, such as %s", cell("price"), cur.Code, amountHint(cur, 1234)))
	}
	if s, err := strconv.ParseInt(cell("stock"), 10, 64); err == nil && s >= 0 && s <= 1_000_000_000 {
		row.Stock = s
	} else {
		why = append(why, fmt.Sprintf("stock: %q is not a whole number from 0 to 1,000,000,000", cell("stock")))
	}
	row.Options = cell("options")
	if cell("compare_at") != "" {
		if row.CompareAtCents, ok = parsePrice(cur, cell("compare_at")); !ok {
			why = append(why, fmt.Sprintf("compare_at: %q is not a price in %s, such as %s", cell("compare_at"), cur.Code, amountHint(cur, 1234)))
		} else if row.Options == "" {
			why = append(why, "compare_at: only a variant's row (with its options) has one")
		}
	}
	if utf8.RuneCountInString(row.Description) > 2000 {
		why = append(why, "description: use at most 2,000 characters")
	}
	switch strings.ToLower(cell("archived")) {
	case "", "false", "no", "0":
	case "true", "yes", "1":
		row.Archived = true
	default:
		why = append(why, fmt.Sprintf("archived: %q is neither true nor false", cell("archived")))
	}
	return row, why
}
