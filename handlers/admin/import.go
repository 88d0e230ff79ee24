package admin

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
	"storefront/store/platform"
	"storefront/views"
)

// ImportMaxBytes is the largest catalog file an import takes (5 MB,
// about 20,000 items with short descriptions).
const ImportMaxBytes = 5 << 20

// importSlack is room for the multipart form around the file.
const importSlack = 64 << 10

// errImportForm is a request without the file field.
var errImportForm = errors.New("no file")

// errImportTooLarge is a file over ImportMaxBytes.
var errImportTooLarge = errors.New("file too large")

// importRefusal words what the database refused in an import row.
var importRefusal = map[error]string{
	catalog.ErrUnknownCategory: "category: no item is in that category yet; correct it, or tick \"Create the categories the catalog does not have yet\" to start it",
	catalog.ErrNotAVariant:     "sku: a row with options must have the SKU of one of the item's variants; add variants on the item's variants page",
	catalog.ErrSKUTaken:        "sku: another item or variant has this SKU (SKUs are unique whatever their case); a variant's row gives its options",
}

// ImportForm is GET /admin/items/import: the form.
func (h *Handler) ImportForm(c echo.Context) error {
	return web.Render(c, http.StatusOK, views.ImportPage(h.web.Chrome(c, "Import the catalog"), views.ImportData{MaxBytes: byteSize(ImportMaxBytes)}))
}

// ImportItems is POST /admin/items/import (multipart field file): the
// catalog as CSV, created or updated by SKU. The file's every row is
// checked for form and against the catalog first; if any is wrong the
// answer is a 422 listing each wrong row and why, and nothing changed. A
// file over ImportMaxBytes is a 413. Otherwise the rows are queued as an
// import job, which the imports worker runs however long it takes (all
// rows or none), and the answer is a 303 to the job's page (JSON: a 202
// with its id and url).
func (h *Handler) ImportItems(c echo.Context) error {
	req := c.Request()
	req.Body = http.MaxBytesReader(c.Response(), req.Body, ImportMaxBytes+importSlack+uploadDrainLimit)
	defer io.Copy(io.Discard, req.Body) //nolint:errcheck // draining a refused upload
	data, opt, err := readImportFile(c)
	switch {
	case errors.Is(err, errImportTooLarge):
		return h.importRefused(c, http.StatusRequestEntityTooLarge, fmt.Sprintf("That file is larger than %s.", byteSize(ImportMaxBytes)), nil)
	case err != nil:
		return h.importRefused(c, http.StatusUnprocessableEntity, "Choose a CSV file to import.", nil)
	}
	rows, bad := parseItemsCSV(h.web.Currency(), data)
	// The catalog's checks read its categories and SKUs once, so they
	// fit in the request even for the largest file; the job checks again
	// in its transaction.
	dbBad, err := h.catalog.CheckImport(req.Context(), rows, opt)
	if err != nil {
		return err
	}
	if bad.merge(dbBad); bad.wrong() {
		return h.importRefused(c, http.StatusUnprocessableEntity, "Some rows are wrong.", bad)
	}
	id, err := h.catalog.QueueImport(req.Context(), web.SessionOf(c).UserName, rows, opt)
	if err != nil {
		return err
	}
	h.web.Audit(c, "queue import", "import:"+web.Itoa(id), "rows", len(rows), "new_categories", opt.NewCategories)
	url := "/admin/imports/" + web.Itoa(id)
	if web.WantsJSON(c) {
		c.Response().Header().Set(echo.HeaderLocation, url)
		return c.JSON(http.StatusAccepted, map[string]any{"id": id, "state": catalog.ImportQueued, "url": url})
	}
	return web.Redirect(c, url)
}

// ImportJob is GET /admin/imports/:id: an import's state and progress,
// its counts when done, or why it changed nothing. Until it ends the
// page reloads itself every two seconds (no script needed).
func (h *Handler) ImportJob(c echo.Context) error {
	id, ok := web.PathID(c.Param("id"))
	if !ok {
		return web.NotFound("There is no import with that number.")
	}
	j, err := h.catalog.ImportJob(c.Request().Context(), id)
	if errors.Is(err, platform.ErrNotFound) {
		return web.NotFound("There is no import with that number.")
	}
	if err != nil {
		return err
	}
	bad := &importCheck{}
	bad.merge(j.Problems)
	if web.WantsJSON(c) {
		out := map[string]any{"id": j.ID, "state": j.State, "phase": j.Phase, "total": j.Total, "checked": j.Checked, "applied": j.Applied}
		switch j.State {
		case catalog.ImportDone:
			out["created"], out["updated"], out["unchanged"] = j.Result.Created, j.Result.Updated, j.Result.Unchanged
			out["new_categories"] = append([]string{}, j.Result.NewCategories...)
		case catalog.ImportFailed:
			out["error"], out["rows"], out["more"] = j.Message, bad.problems, bad.more
		}
		return c.JSON(http.StatusOK, out)
	}
	d := views.ImportJobData{ID: j.ID, State: j.State, Phase: j.Phase, Total: j.Total, Checked: j.Checked, Applied: j.Applied,
		Created: j.Result.Created, Updated: j.Result.Updated, Unchanged: j.Result.Unchanged, Message: j.Message,
		Problems: bad.problems, More: bad.more, Admin: j.Admin, Started: time.UnixMilli(j.CreatedAt).UTC().Format("2 Jan 2006 15:04 UTC")}
	if j.State == catalog.ImportDone {
		d.Result = fmt.Sprintf("Imported the catalog: %d created, %d updated, %d unchanged.", j.Result.Created, j.Result.Updated, j.Result.Unchanged)
		if n := j.Result.NewCategories; len(n) > 0 {
			d.Result += fmt.Sprintf(" New %s: %s.", plural(len(n), "category", "categories"), strings.Join(n, ", "))
		}
	}
	chrome := h.web.Chrome(c, "Catalog import #"+web.Itoa(j.ID))
	if !j.Ended() {
		chrome.Refresh = 2
	}
	return web.Render(c, http.StatusOK, views.ImportJobPage(chrome, d))
}

// plural is one or many's word.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// readImportFile streams the multipart body, reading the file field (at
// most one byte more than ImportMaxBytes) and the new_categories box,
// which the form puts before the file.
func readImportFile(c echo.Context) ([]byte, catalog.ImportOptions, error) {
	var opt catalog.ImportOptions
	mr, err := c.Request().MultipartReader()
	if err != nil {
		return nil, opt, errImportForm
	}
	for {
		part, err := mr.NextPart()
		if _, big := errors.AsType[*http.MaxBytesError](err); big {
			return nil, opt, errImportTooLarge
		}
		if err != nil {
			return nil, opt, errImportForm
		}
		if part.FormName() == "new_categories" {
			v, _ := io.ReadAll(io.LimitReader(part, 8))
			opt.NewCategories = string(v) == "1"
			continue
		}
		if part.FormName() != "file" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, ImportMaxBytes+1))
		if _, big := errors.AsType[*http.MaxBytesError](err); big || len(data) > ImportMaxBytes {
			return nil, opt, errImportTooLarge
		}
		if err != nil {
			return nil, opt, errImportForm
		}
		return data, opt, nil
	}
}

// importRefused answers a refused import with status: the message and
// the wrong rows, as JSON or on the import page.
func (h *Handler) importRefused(c echo.Context, status int, msg string, bad *importCheck) error {
	d := views.ImportData{Message: msg, MaxBytes: byteSize(ImportMaxBytes)}
	if bad != nil {
		d.Problems, d.More = bad.problems, bad.more
	}
	if web.WantsJSON(c) {
		return c.JSON(status, map[string]any{"error": msg, "rows": d.Problems, "more": d.More})
	}
	return web.Render(c, status, views.ImportPage(h.web.Chrome(c, "Import the catalog"), d))
}
