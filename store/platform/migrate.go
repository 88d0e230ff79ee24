package platform

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// The migrations of every domain's tables, run as one numbered sequence:
// migrations/NNN_name.sql, or NNN_name.sqlite.sql / NNN_name.postgres.sql
// for the few whose DDL differs.
//
//go:embed migrations/*.sql
var migrations embed.FS

// Migrate applies the embedded migrations that have not run yet, in name
// order, each in its own transaction. On PostgreSQL an advisory lock keeps
// two instances starting together from racing.
func Migrate(ctx context.Context, db *sql.DB) error {
	kind := KindOf(db)
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer conn.Close()
	if kind == DBPostgres {
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(7310021)`); err != nil {
			return fmt.Errorf("migrate: lock: %w", err)
		}
		defer conn.ExecContext(context.Background(), `SELECT pg_advisory_unlock(7310021)`)
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if !migrationApplies(name, kind) {
			continue
		}
		if err := applyMigration(ctx, conn, name, kind); err != nil {
			return fmt.Errorf("migrate %s: %w", name, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, conn *sql.Conn, name, kind string) error {
	version := migrationVersion(name)
	body, err := migrations.ReadFile(name)
	if err != nil {
		return err
	}
	// Whether the migration ran is read inside its transaction. On SQLite
	// the transaction takes the write lock at BEGIN (_txlock=immediate),
	// so an instance starting beside another waits for the other's
	// migration and then skips it; read before BEGIN, both applied it and
	// the second failed ("table items already exists", found by
	// TestSeveralInstances). PostgreSQL is serialised by Migrate's lock.
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = $1`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	for _, stmt := range splitStatements(dialect(string(body), kind)) {
		if strings.TrimSpace(stmt) == "" {
			continue
		}
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%w in %q", err, strings.TrimSpace(stmt))
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)`, version, time.Now().Unix()); err != nil {
		return err
	}
	return tx.Commit()
}

// migrationApplies says whether a migration file is for this database: a
// name like 040_search.sqlite.sql or 040_search.postgres.sql runs only on
// that database (for the few features whose DDL cannot be shared, such as
// full-text search); a plain name runs on both.
func migrationApplies(name, kind string) bool {
	base := strings.TrimSuffix(filepath.Base(name), ".sql")
	for _, k := range []string{DBSQLite, DBPostgres} {
		if strings.HasSuffix(base, "."+k) {
			return k == kind
		}
	}
	return true
}

// migrationVersion is the name recorded in schema_migrations: the file
// name without its database suffix, so both variants count as one version.
func migrationVersion(name string) string {
	base := strings.TrimSuffix(filepath.Base(name), ".sql")
	base = strings.TrimSuffix(base, "."+DBSQLite)
	return strings.TrimSuffix(base, "."+DBPostgres)
}

// splitStatements splits a migration at semicolons that end a line,
// keeping together the statements that contain such semicolons
// themselves: SQLite trigger bodies (BEGIN ... END) and PostgreSQL
// function bodies ($$ ... $$).
func splitStatements(body string) []string {
	var out []string
	cur := ""
	for _, part := range strings.Split(body, ";\n") {
		cur += part
		upper := strings.ToUpper(strings.TrimSpace(stripComments(cur)))
		inFunc := strings.Count(cur, "$$")%2 == 1
		inTrigger := strings.HasPrefix(upper, "CREATE TRIGGER") && strings.Contains(upper, " BEGIN") && !strings.HasSuffix(upper, "END")
		if inFunc || inTrigger {
			cur += ";\n"
			continue
		}
		out = append(out, cur)
		cur = ""
	}
	if strings.TrimSpace(cur) != "" {
		out = append(out, cur)
	}
	return out
}

// stripComments drops "--" comment lines, which may precede a statement.
func stripComments(stmt string) string {
	var b strings.Builder
	for _, line := range strings.Split(stmt, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "--") {
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// dialect fills the few DDL words that differ between SQLite and
// PostgreSQL; queries themselves are the same for both.
func dialect(ddl, kind string) string {
	id, blob := "INTEGER PRIMARY KEY AUTOINCREMENT", "BLOB"
	if kind == DBPostgres {
		id, blob = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", "BYTEA"
	}
	return strings.NewReplacer("{{ID}}", id, "{{BLOB}}", blob).Replace(ddl)
}
