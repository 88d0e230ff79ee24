package catalog

import "time"

// SetImportStep makes every import job call f after each report of the
// rows it wrote, every rows rows, until the test ends (restore).
func SetImportStep(rows int, f func(applied int)) (restore func()) {
	oldRows, oldStep := importStepRows, importStep
	importStepRows, importStep = rows, f
	return func() { importStepRows, importStep = oldRows, oldStep }
}

// SetImportRunLease shortens how long a stopped run holds its job.
func SetImportRunLease(d time.Duration) (restore func()) {
	old := importRunLease
	importRunLease = d
	return func() { importRunLease = old }
}
