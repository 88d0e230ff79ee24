package platform

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
	_ "modernc.org/sqlite"             // registers the "sqlite" driver
)

// Database kinds.
const (
	DBSQLite   = "sqlite"
	DBPostgres = "postgres"
)

// OpenDB opens PostgreSQL when databaseURL is set, else SQLite at
// dataDir/shop.db. SQLite's pragmas are in the DSN so that every pooled
// connection gets them.
func OpenDB(ctx context.Context, databaseURL, dataDir string) (*sql.DB, error) {
	var db *sql.DB
	var err error
	if databaseURL != "" {
		db, err = sql.Open("pgx", databaseURL)
		if err != nil {
			return nil, fmt.Errorf("DATABASE_URL: %w", err)
		}
		db.SetMaxOpenConns(20)
		db.SetMaxIdleConns(20)
		db.SetConnMaxIdleTime(5 * time.Minute)
	} else {
		db, err = sql.Open("sqlite", SQLiteDSN(filepath.Join(dataDir, "shop.db")))
		if err != nil {
			return nil, fmt.Errorf("sqlite: %w", err)
		}
		db.SetMaxOpenConns(8)
	}
	pingCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for {
		err = db.PingContext(pingCtx)
		// SQLite answers SQLITE_BUSY without waiting when a connection
		// opens (and switches to WAL) while another process creates the
		// file: two instances starting together on one DATA_DIR (found
		// by TestSeveralInstances). That passes in a moment; try again.
		if err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") || pingCtx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("database: %w", err)
	}
	return db, nil
}

// SQLiteDSN is the DSN for a SQLite file: WAL for concurrent readers, a
// busy timeout instead of immediate SQLITE_BUSY, foreign keys on, and
// write transactions that take the write lock at BEGIN so that two
// checkouts never deadlock upgrading a read lock.
func SQLiteDSN(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// KindOf says which database db is: DBSQLite or DBPostgres.
func KindOf(db *sql.DB) string {
	if strings.Contains(fmt.Sprintf("%T", db.Driver()), "stdlib") {
		return DBPostgres
	}
	return DBSQLite
}

// InList returns the SQL parameters for ids from $from on ("$3, $4, $5")
// and the ids as arguments, for `IN (...)`.
func InList(from int, ids []int64) (string, []any) {
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	return Placeholders(from, len(ids)), args
}

// Placeholders returns n SQL parameters from $from on: "$3, $4, $5".
func Placeholders(from, n int) string {
	b := make([]byte, 0, n*5)
	for i := range n {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(from+i), 10)
	}
	return string(b)
}

// ValueRows returns rows groups of cols SQL parameters from $from on,
// "($1, $2), ($3, $4)", for an INSERT of several rows.
func ValueRows(from, rows, cols int) string {
	var b strings.Builder
	for r := range rows {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		b.WriteString(Placeholders(from+r*cols, cols))
		b.WriteByte(')')
	}
	return b.String()
}

// Contains is the LIKE pattern (used with ESCAPE '\' against a LOWER()
// column) matching text that contains s in any case: s lower-cased, with
// the pattern's own characters escaped so that they match themselves.
func Contains(s string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(strings.ToLower(s)) + "%"
}

// InTx runs f in a transaction: committed when f returns nil, rolled back
// otherwise (f's error is returned as it is, so callers can match it).
func InTx(ctx context.Context, db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
