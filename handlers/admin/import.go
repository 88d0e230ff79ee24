package admin

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/catalog"
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
	catalog.ErrUnknownCategory: "category: no item is in that category; the categories are the ones the catalog has",
	catalog.ErrNotAVariant:     "sku: a row with options must have the SKU of one of the item's variants; add variants on the item's variants page",
}

// ImportForm is GET /admin/items/import: the form.
func (h *Handler) ImportForm(c echo.Context) error {
	return web.Render(c, http.StatusOK, views.ImportPage(h.web.Chrome(c, "Import the catalog"), views.ImportData{MaxBytes: byteSize(ImportMaxBytes)}))
}

// ImportItems is POST /admin/items/import (multipart field file): the
// catalog as CSV, created or updated by SKU. Every row is checked first;
// if any is wrong the answer is a 422 listing each wrong row and why, and
// nothing changed. A file over ImportMaxBytes is a 413. Otherwise it
// answers with how many items were created, updated and left unchanged
// (a 303 with the counts, or JSON).
func (h *Handler) ImportItems(c echo.Context) error {
	req := c.Request()
	req.Body = http.MaxBytesReader(c.Response(), req.Body, ImportMaxBytes+importSlack+uploadDrainLimit)
	defer io.Copy(io.Discard, req.Body) //nolint:errcheck // draining a refused upload
	data, err := readImportFile(c)
	switch {
	case errors.Is(err, errImportTooLarge):
		return h.importRefused(c, http.StatusRequestEntityTooLarge, fmt.Sprintf("That file is larger than %s.", byteSize(ImportMaxBytes)), nil)
	case err != nil:
		return h.importRefused(c, http.StatusUnprocessableEntity, "Choose a CSV file to import.", nil)
	}
	rows, bad := parseItemsCSV(data)
	dbBad, err := h.catalog.CheckImport(req.Context(), rows)
	if err != nil {
		return err
	}
	if bad.merge(dbBad); bad.wrong() {
		return h.importRefused(c, http.StatusUnprocessableEntity, "Some rows are wrong.", bad)
	}
	res, err := h.catalog.ImportItems(req.Context(), rows)
	if ie, ok := errors.AsType[*catalog.ImportError](err); ok { // the catalog changed since CheckImport
		bad = &importCheck{}
		bad.merge(ie.Rows)
		return h.importRefused(c, http.StatusUnprocessableEntity, "Some rows are wrong.", bad)
	}
	if err != nil {
		return err
	}
	h.web.Audit(c, "import items", "catalog", "created", res.Created, "updated", res.Updated, "unchanged", res.Unchanged)
	if web.WantsJSON(c) {
		return c.JSON(http.StatusOK, map[string]int{"created": res.Created, "updated": res.Updated, "unchanged": res.Unchanged})
	}
	h.web.SetFlash(c, fmt.Sprintf("Imported the catalog: %d created, %d updated, %d unchanged.", res.Created, res.Updated, res.Unchanged))
	return web.Redirect(c, "/admin/items/import")
}

// readImportFile streams the multipart body to the file field and reads
// at most one byte more than ImportMaxBytes.
func readImportFile(c echo.Context) ([]byte, error) {
	mr, err := c.Request().MultipartReader()
	if err != nil {
		return nil, errImportForm
	}
	for {
		part, err := mr.NextPart()
		if _, big := errors.AsType[*http.MaxBytesError](err); big {
			return nil, errImportTooLarge
		}
		if err != nil {
			return nil, errImportForm
		}
		if part.FormName() != "file" {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(part, ImportMaxBytes+1))
		if _, big := errors.AsType[*http.MaxBytesError](err); big || len(data) > ImportMaxBytes {
			return nil, errImportTooLarge
		}
		if err != nil {
			return nil, errImportForm
		}
		return data, nil
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
