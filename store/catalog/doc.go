// Package catalog owns the items: their rows in SQL (table items, each
// with a unique SKU), the admin's edits (create, edit, archive and
// restore; the CSV import by SKU, ImportItems, all rows or none, run as
// a job by the imports worker (QueueImport, ImportJob), and the
// export, EachItem), the row cache of scheduled rows in Redis, the
// in-process item-name cache, and the item events that tell other
// domains an item changed.
//
// Redis keys: `inv:<id>` (a row as JSON, keys.RowCache), `schedule:` and
// `delay:` (the row cache's schedule, keys.RowSchedule and keys.RowDelay),
// `import:<id>:progress` and `imports:wake` (import jobs, keys.ImportProgress
// and keys.ImportWake), leases `imports` and `import:<id>`.
// Tables: items (and the full-text tables search reads, kept by triggers),
// import_jobs (catalog imports queued by the upload and run by the
// imports worker, importjobs.go), item_variants (an item's variants, when items.option_names names its
// options), skus (every item's and variant's SKU in lower case, kept by
// triggers on both tables), categories (the catalog tree: a row per
// category name items carry, nested at most MaxDepth levels, each at its
// path) and category_moves (paths categories had before a rename or a
// move, answered with a redirect).
//
// Invariants:
//   - A SKU names one item or one variant, whatever its case: the skus
//     table's key refuses a second one on every path (a new item's
//     default SKU steps around a taken one; the variants page and the
//     import refuse it with ErrSKUTaken's reason).
//   - Every committed change of an item that a page, a search or a cart
//     shows goes through Changed: the row-cache copy goes at once, the
//     name is forgotten, and the listeners registered with OnChange (the
//     page cache purges the item's pages, search moves its version) hear
//     of it. No other domain purges pages for an item change.
//   - An import is one transaction that changes nothing if any row is
//     wrong, writes only rows that differ (the same file twice changes
//     nothing), and announces what it changed like any edit An import job
//     is run by exactly one run at a time (its lease), which commits the
//     job's outcome with the catalog's change, only while its token is
//     the job's; a run cut short changes nothing and the job starts again.
//   - Items are never deleted, only archived; an archived item leaves
//     listings, search and carts, and its page answers Gone.
//   - An item with options sells only through its variants, and its
//     items.stock is their stock summed, kept in the same transaction as
//     every change of a variant's stock (TakeStock, PutBackStock,
//     SaveVariants, the import). An item without options is its own
//     implicit variant, id 0. A transaction locks an item's row before
//     any of its variants' rows.
//   - The row cache never decides a sale: the checkout re-reads stock and
//     prices in its transaction (TakeStock, ItemsTx).
//
// Tests: rowcache_test.go and catalog_test.go here (external, on the
// whole shop from wiring/wiringtest); the admin's HTTP flows in handlers
// (the CSV export and import in admin_csv_test.go and
// admin_import_test.go).
package catalog
