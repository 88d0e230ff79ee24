package store

import (
	"context"
	"fmt"

	"storefront/store/platform"
)

// SeedDemo fills an empty catalog with the demo items and creates the
// admin account. It is safe to run from several instances at once: rows
// that exist are left alone. When it creates the admin account with a
// random password (adminPassword empty), it returns that password, which
// exists nowhere else; otherwise it returns "".
func (s *Store) SeedDemo(ctx context.Context, adminPassword string) (string, error) {
	if err := s.seeder.Catalog(ctx); err != nil {
		return "", err
	}
	generated := adminPassword == ""
	if generated {
		adminPassword = platform.RandomHex(10)
	}
	created, err := s.Sessions.EnsureAdmin(ctx, adminPassword)
	if err != nil {
		return "", fmt.Errorf("seed admin: %w", err)
	}
	shown := ""
	if created && generated {
		shown = adminPassword
	}
	if err := s.seeder.Pictures(ctx); err != nil {
		return shown, err
	}
	return shown, s.seedArticles(ctx)
}
