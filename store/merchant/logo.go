package merchant

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"storefront/store/audit"
	"storefront/store/platform"
)

// Logo is the shop's logo: a picture stored by the media store (its
// hash) at the sizes it keeps, narrowest first. The zero Logo is none.
type Logo struct {
	Hash  string
	Sizes []LogoSize
}

// LogoSize is one stored size of the logo.
type LogoSize struct {
	Width, Height int
	Ext           string
}

// Logo is the logo in force, from memory.
func (s *Service) Logo() Logo { return s.cur.Load().logo }

// SetLogo makes l the shop's logo (the zero Logo removes it) and announces
// the change, so every cached page is purged. It returns the hash of the
// logo it replaced ("" for none), which the media store may then drop.
func (s *Service) SetLogo(ctx context.Context, l Logo) (string, error) {
	var was string
	err := platform.InTx(ctx, s.db, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT hash FROM shop_logo WHERE id = 1`).Scan(&was)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if l.Hash == "" {
			_, err = tx.ExecContext(ctx, `DELETE FROM shop_logo WHERE id = 1`)
		} else {
			_, err = tx.ExecContext(ctx, `INSERT INTO shop_logo (id, hash, sizes, updated_at) VALUES (1, $1, $2, $3)
				ON CONFLICT (id) DO UPDATE SET hash = excluded.hash, sizes = excluded.sizes, updated_at = excluded.updated_at`,
				l.Hash, formatSizes(l.Sizes), s.clock.Now().Unix())
		}
		if err != nil {
			return err
		}
		return audit.Record(ctx, tx, audit.Entry{Kind: "settings.logo", Target: "shop logo",
			Before: audit.Fields{"logo": was}, After: audit.Fields{"logo": l.Hash}})
	})
	if err != nil {
		return "", fmt.Errorf("shop logo: %w", err)
	}
	return was, s.saved(ctx)
}

// readLogo reads the saved logo, the zero Logo if there is none.
func readLogo(ctx context.Context, db *sql.DB) (Logo, error) {
	var l Logo
	var sizes string
	err := db.QueryRowContext(ctx, `SELECT hash, sizes FROM shop_logo WHERE id = 1`).Scan(&l.Hash, &sizes)
	if errors.Is(err, sql.ErrNoRows) {
		return Logo{}, nil
	}
	if err != nil {
		return Logo{}, fmt.Errorf("shop logo: %w", err)
	}
	l.Sizes = parseSizes(sizes)
	if len(l.Sizes) == 0 {
		return Logo{}, nil
	}
	return l, nil
}

func formatSizes(sizes []LogoSize) string {
	parts := make([]string, len(sizes))
	for i, z := range sizes {
		parts[i] = strconv.Itoa(z.Width) + "x" + strconv.Itoa(z.Height) + "." + z.Ext
	}
	return strings.Join(parts, ",")
}

func parseSizes(stored string) []LogoSize {
	var out []LogoSize
	for _, p := range strings.Split(stored, ",") {
		dims, ext, ok := strings.Cut(p, ".")
		ws, hs, ok2 := strings.Cut(dims, "x")
		w, err1 := strconv.Atoi(ws)
		h, err2 := strconv.Atoi(hs)
		if ok && ok2 && err1 == nil && err2 == nil && w > 0 && h > 0 && ext != "" {
			out = append(out, LogoSize{Width: w, Height: h, Ext: ext})
		}
	}
	return out
}
