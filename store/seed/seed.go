package seed

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"

	"storefront/store/catalog"
	"storefront/store/media"
	"storefront/store/platform"
)

// Service fills an empty shop with the demo data.
type Service struct {
	db       *sql.DB
	log      *slog.Logger
	clock    *platform.Clock
	instance string
	opt      Options
	catalog  *catalog.Service
	media    *media.Service
}

// Options say which demo data to add beside the catalog.
type Options struct {
	// Pictures gives demo items generated pictures (main turns it on;
	// tests that want them opt in).
	Pictures bool
	// PictureCacheDir, if set, is a directory where the generated demo
	// pictures are kept for the next start of the same program (see
	// demoPictures): drawing them is most of a first start's work.
	PictureCacheDir string
}

// New returns the seeder.
func New(b platform.Base, opt Options, cat *catalog.Service, med *media.Service) *Service {
	return &Service{db: b.DB, log: b.Log, clock: b.Clock, instance: b.Instance, opt: opt, catalog: cat, media: med}
}

// Catalog fills an empty catalog with the demo items. It is safe to run
// from several instances at once: rows that exist are left alone.
func (s *Service) Catalog(ctx context.Context) error {
	empty, err := s.catalog.Empty(ctx)
	if err != nil || !empty {
		return err
	}
	if err := s.catalog.AddItems(ctx, DemoItems(s.clock.Now())); err != nil {
		return fmt.Errorf("seed items: %w", err)
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
