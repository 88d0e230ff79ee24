package platform

import (
	"context"
	"database/sql"
	"io/fs"
	"path/filepath"
	"sort"
)

// MigrateBefore applies only the migrations numbered below version (such
// as "125"), leaving the database as one made before them: tests of a
// migration fill it with old rows, then run Migrate.
func MigrateBefore(ctx context.Context, db *sql.DB, version string) error {
	kind := KindOf(db)
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return err
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if filepath.Base(name) >= version+"_" {
			break
		}
		if !migrationApplies(name, kind) {
			continue
		}
		if err := applyMigration(ctx, conn, name, kind); err != nil {
			return err
		}
	}
	return nil
}
