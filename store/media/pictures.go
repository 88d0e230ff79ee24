package media

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"time"

	"storefront/store/audit"
	"storefront/store/catalog"
	"storefront/store/platform"
)

// Service stores and serves the items' pictures.
type Service struct {
	db      *sql.DB
	clock   *platform.Clock
	catalog *catalog.Service
	// ImageMemory is the process's budget for processing pictures
	// (ImageMemoryBudget); ProcessImage reserves from it.
	ImageMemory *MemoryBudget
}

// New returns the pictures service; changes to an item's pictures are
// announced through the catalog.
func New(b platform.Base, cat *catalog.Service) *Service {
	return &Service{db: b.DB, clock: b.Clock, catalog: cat, ImageMemory: NewMemoryBudget(ImageMemoryBudget)}
}

// ImageSize is one stored width of a picture.
type ImageSize struct {
	Width, Height int
	Ext           string
}

// ItemImage is one of an item's pictures: its content hash and the sizes
// stored, narrowest first. Position 1 is the main picture.
type ItemImage struct {
	Position int
	Hash     string
	Sizes    []ImageSize
}

// AddItemImage stores a processed picture as the item's last one and
// announces the item's change (its cached pages are purged). The bytes are stored once per content
// hash, shared by every item that uses the same picture.
func (s *Service) AddItemImage(ctx context.Context, itemID int64, img ProcessedImage) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("add image: %w", err)
	}
	defer tx.Rollback()
	// Touching the item first takes its row lock (the write lock on
	// SQLite), so concurrent uploads to one item take turns for the count
	// and the position.
	if err := catalog.LockItem(ctx, tx, itemID, s.clock.Now()); err != nil {
		return 0, err
	}
	var n, last int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(position), 0) FROM item_images WHERE item_id = $1`, itemID).Scan(&n, &last); err != nil {
		return 0, fmt.Errorf("add image: %w", err)
	}
	if n >= MaxItemImages {
		return 0, ErrItemImagesFull
	}
	if err := InsertImage(ctx, tx, img, s.clock.Now()); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO item_images (item_id, position, hash) VALUES ($1, $2, $3)`, itemID, last+1, img.Hash); err != nil {
		return 0, fmt.Errorf("add image: %w", err)
	}
	if err := audit.Record(ctx, tx, audit.Entry{Kind: "item.picture.add", Target: "item " + strconv.FormatInt(itemID, 10),
		After: audit.Fields{"position": last + 1, "picture": img.Hash}}); err != nil {
		return 0, err
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("add image: %w", err)
	}
	return last + 1, s.catalog.Changed(ctx, catalog.Change{IDs: []int64{itemID}})
}

// InsertImage stores a picture's renditions in tx unless they are there
// already (the demo seeding stores its pictures this way).
func InsertImage(ctx context.Context, tx *sql.Tx, img ProcessedImage, now time.Time) error {
	if _, err := tx.ExecContext(ctx, `INSERT INTO images (hash, created_at) VALUES ($1, $2) ON CONFLICT DO NOTHING`, img.Hash, now.Unix()); err != nil {
		return fmt.Errorf("store image: %w", err)
	}
	for _, r := range img.Renditions {
		if _, err := tx.ExecContext(ctx, `INSERT INTO image_renditions (hash, width, height, ext, content_type, bytes)
			VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`, img.Hash, r.Width, r.Height, r.Ext, r.ContentType, r.Bytes); err != nil {
			return fmt.Errorf("store image: %w", err)
		}
	}
	return nil
}

// DeleteItemImage removes the item's picture at position (1-based); the
// later ones move up. A picture no item uses any more is deleted. The
// item's change is announced (its cached pages are purged).
func (s *Service) DeleteItemImage(ctx context.Context, itemID int64, position int) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("delete image: %w", err)
	}
	defer tx.Rollback()
	if err := catalog.LockItem(ctx, tx, itemID, s.clock.Now()); err != nil {
		return err
	}
	var hash string
	err = tx.QueryRowContext(ctx, `SELECT hash FROM item_images WHERE item_id = $1 AND position = $2`, itemID, position).Scan(&hash)
	if errors.Is(err, sql.ErrNoRows) {
		return platform.ErrNotFound
	}
	if err != nil {
		return fmt.Errorf("delete image: %w", err)
	}
	// Positions move up in two steps so that no step collides with the
	// (item_id, position) key while rows are renumbered.
	for _, stmt := range []string{
		`DELETE FROM item_images WHERE item_id = $1 AND position = $2`,
		`UPDATE item_images SET position = position + 1000 WHERE item_id = $1 AND position > $2`,
		`UPDATE item_images SET position = position - 1001 WHERE item_id = $1 AND position > 1000 + $2`,
	} {
		if _, err := tx.ExecContext(ctx, stmt, itemID, position); err != nil {
			return fmt.Errorf("delete image: %w", err)
		}
	}
	if err := audit.Record(ctx, tx, audit.Entry{Kind: "item.picture.delete", Target: "item " + strconv.FormatInt(itemID, 10),
		Before: audit.Fields{"position": position, "picture": hash}}); err != nil {
		return err
	}
	for _, stmt := range []string{
		`DELETE FROM image_renditions WHERE hash = $1 AND NOT EXISTS (SELECT 1 FROM item_images WHERE hash = $1)
			AND NOT EXISTS (SELECT 1 FROM shop_logo WHERE hash = $1)`,
		`DELETE FROM images WHERE hash = $1 AND NOT EXISTS (SELECT 1 FROM item_images WHERE hash = $1)
			AND NOT EXISTS (SELECT 1 FROM shop_logo WHERE hash = $1)`,
	} {
		if _, err := tx.ExecContext(ctx, stmt, hash); err != nil {
			return fmt.Errorf("delete image: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("delete image: %w", err)
	}
	return s.catalog.Changed(ctx, catalog.Change{IDs: []int64{itemID}})
}

// ItemImages returns an item's pictures in order.
func (s *Service) ItemImages(ctx context.Context, itemID int64) ([]ItemImage, error) {
	m, err := s.images(ctx, `ii.item_id = $1`, []any{itemID})
	return m[itemID], err
}

// MainImages returns the main picture of each item that has one.
func (s *Service) MainImages(ctx context.Context, itemIDs []int64) (map[int64]ItemImage, error) {
	out := map[int64]ItemImage{}
	if len(itemIDs) == 0 {
		return out, nil
	}
	ph, args := platform.InList(1, itemIDs)
	m, err := s.images(ctx, `ii.position = 1 AND ii.item_id IN (`+ph+`)`, args)
	for id, imgs := range m {
		out[id] = imgs[0]
	}
	return out, err
}

func (s *Service) images(ctx context.Context, cond string, args []any) (map[int64][]ItemImage, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT ii.item_id, ii.position, r.hash, r.width, r.height, r.ext
		FROM item_images ii JOIN image_renditions r ON r.hash = ii.hash
		WHERE `+cond+` ORDER BY ii.item_id, ii.position, r.width`, args...)
	if err != nil {
		return nil, fmt.Errorf("item images: %w", err)
	}
	defer rows.Close()
	out := map[int64][]ItemImage{}
	for rows.Next() {
		var id int64
		var pos int
		var hash string
		var size ImageSize
		if err := rows.Scan(&id, &pos, &hash, &size.Width, &size.Height, &size.Ext); err != nil {
			return nil, fmt.Errorf("item images: %w", err)
		}
		imgs := out[id]
		if len(imgs) == 0 || imgs[len(imgs)-1].Position != pos {
			imgs = append(imgs, ItemImage{Position: pos, Hash: hash})
		}
		imgs[len(imgs)-1].Sizes = append(imgs[len(imgs)-1].Sizes, size)
		out[id] = imgs
	}
	return out, rows.Err()
}

// Media returns one stored size of a picture.
func (s *Service) Media(ctx context.Context, hash string, width int, ext string) (Rendition, error) {
	r := Rendition{Width: width, Ext: ext}
	err := s.db.QueryRowContext(ctx, `SELECT height, content_type, bytes FROM image_renditions WHERE hash = $1 AND width = $2 AND ext = $3`,
		hash, width, ext).Scan(&r.Height, &r.ContentType, &r.Bytes)
	if errors.Is(err, sql.ErrNoRows) {
		return r, platform.ErrNotFound
	}
	if err != nil {
		return r, fmt.Errorf("media: %w", err)
	}
	return r, nil
}

// HasMedia reports whether one size of a picture is stored, without
// reading its bytes (a revalidation needs only that).
func (s *Service) HasMedia(ctx context.Context, hash string, width int, ext string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM image_renditions WHERE hash = $1 AND width = $2 AND ext = $3`,
		hash, width, ext).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("media: %w", err)
	}
	return true, nil
}

// WithoutPictures counts the items with ids up to upTo that have no
// picture (the demo seeding gives them one).
func (s *Service) WithoutPictures(ctx context.Context, upTo int64) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM items WHERE id <= $1 AND NOT EXISTS (SELECT 1 FROM item_images WHERE item_id = items.id)`,
		upTo).Scan(&n)
	return n, err
}

// AttachFirstPicture makes a stored picture an existing item's first in
// tx, unless the item has one at that place already.
func AttachFirstPicture(ctx context.Context, tx *sql.Tx, itemID int64, hash string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO item_images (item_id, position, hash)
		SELECT $1, 1, $2 WHERE EXISTS (SELECT 1 FROM items WHERE id = $1) ON CONFLICT DO NOTHING`, itemID, hash)
	return err
}
