package seed

import (
	"context"

	"storefront/store/catalog"
)

// RemoveDemo removes the demo catalog: each demo item still as it was
// seeded (the same id and name: an item the merchant renamed is theirs
// now) is deleted when no order holds it, with its variants, pictures,
// reviews and Redis rows, and archived when one does (catalog.RemoveItems).
// Safe to repeat and to run from several admins at once.
func (s *Service) RemoveDemo(ctx context.Context) (catalog.Removed, error) {
	demo := DemoItems(s.clock.Now())
	ids := make([]int64, len(demo))
	for i, it := range demo {
		ids[i] = it.ID
	}
	found, err := s.Catalog.Items(ctx, ids)
	if err != nil {
		return catalog.Removed{}, err
	}
	var still []int64
	for _, it := range demo {
		if f, ok := found[it.ID]; ok && f.Name == it.Name {
			still = append(still, it.ID)
		}
	}
	return s.Catalog.RemoveItems(ctx, still)
}
