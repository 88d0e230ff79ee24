package store

import (
	"context"

	"storefront/store/keys"
	"storefront/store/platform"
)

// Internals the external tests (package store_test) reach through.

// CacheKeyOf is the page cache's URL rule: the key of an item page URL's
// query, or false when it bypasses the cache.
var CacheKeyOf = pageKey

// FillPage renders (or finds) an item page as a miss would, with the purge
// generations gen read before.
func FillPage(ctx context.Context, s *Store, itemID int64, gen PageGen, render RenderFunc) (string, error) {
	_, outcome, err := s.fillPage(ctx, pageFill{Key: PageKey(itemID), ItemID: itemID, Gen: gen, Render: render, epoch: s.pages.l1.epoch(itemID)})
	return outcome, err
}

// PageGens reads an item's purge generations.
func PageGens(ctx context.Context, s *Store, itemID int64) PageGen {
	return parseGen(s.rdb.HMGet(ctx, keys.PageGen, platform.FormatID(itemID), keys.PageGenAll).Val())
}

// Fill outcomes.
const (
	FillRendered = fillRendered
	FillFound    = fillFound
)

// KeyPurgeChannel is where purges are announced.
const KeyPurgeChannel = keys.PurgeChannel
