package seed

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"storefront/store/board"
	"storefront/store/catalog"
	"storefront/store/collections"
	"storefront/store/media"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/social"
)

// Service fills an empty shop with the demo data.
type Service struct {
	db       *sql.DB
	log      *slog.Logger
	clock    *platform.Clock
	instance string
	opt      Options
	Deps
}

// Deps are the domains the demo data is written through.
type Deps struct {
	Catalog  *catalog.Service
	Media    *media.Service
	Sessions *sessions.Service
	Board    *board.Service
	Social   *social.Service
	// Collections, when set, gets the demo's two collections.
	Collections *collections.Service
}

// Options say which demo data to add beside the catalog and the admin.
type Options struct {
	// Articles adds demo articles, voters and comments to an empty board
	// (main turns it on; tests that want them opt in).
	Articles bool
	// Pictures gives demo items generated pictures (main turns it on;
	// tests that want them opt in).
	Pictures bool
	// Variants gives the demo catalog its options and variants
	// (DemoVariants; main turns it on, tests that want them opt in).
	Variants bool
	// NoDemo starts the shop empty (SEED_DEMO=false): Demo creates the
	// admin account and nothing else, no items, articles or users.
	NoDemo bool
	// PictureCacheDir, if set, is a directory where the generated demo
	// pictures are kept for the next start of the same program (see
	// demoPictures): drawing them is most of a first start's work.
	PictureCacheDir string
}

// New returns the seeder. Only d.Catalog is needed to seed the items
// alone (Items); Demo needs all of d.
func New(b platform.Base, opt Options, d Deps) *Service {
	return &Service{db: b.DB, log: b.Log, clock: b.Clock, instance: b.Instance, opt: opt, Deps: d}
}

// Demo fills an empty shop with the demo data: the catalog, the admin
// account, and (as Options say) pictures and articles. It is safe to run
// from several instances at once: what exists is left alone. When it
// creates the admin account with a random password (adminPassword empty),
// it returns that password, which exists nowhere else; otherwise "".
func (s *Service) Demo(ctx context.Context, adminPassword string) (string, error) {
	if !s.opt.NoDemo {
		if err := s.Items(ctx); err != nil {
			return "", err
		}
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
	if s.opt.NoDemo {
		return shown, nil
	}
	if err := s.Pictures(ctx); err != nil {
		return shown, err
	}
	return shown, s.seedArticles(ctx)
}

// Items fills an empty catalog with the demo items. It is safe to run
// from several instances at once: rows that exist are left alone.
func (s *Service) Items(ctx context.Context) error {
	empty, err := s.Catalog.Empty(ctx)
	if err != nil || !empty {
		return err
	}
	items := DemoItems(s.clock.Now())
	if err := s.Catalog.AddItems(ctx, items); err != nil {
		return fmt.Errorf("seed items: %w", err)
	}
	if s.opt.Variants {
		if err := s.Catalog.AddDemoVariants(ctx, DemoVariants(items)); err != nil {
			return fmt.Errorf("seed variants: %w", err)
		}
	}
	if err := s.tree(ctx); err != nil {
		return err
	}
	s.log.Info("seeded demo catalog", "items", DemoItemCount)
	return nil
}

// Pictures gives every demo item without a picture its generated one,
// when Options.Pictures is on.
func (s *Service) Pictures(ctx context.Context) error {
	if !s.opt.Pictures {
		return nil
	}
	return s.seedImages(ctx)
}
