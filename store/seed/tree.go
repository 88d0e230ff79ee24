package seed

import (
	"context"
	"errors"
	"fmt"

	"storefront/store/catalog"
	"storefront/store/collections"
)

// demoTree nests the demo departments: each group is made and the
// departments named move into it (the last group three levels deep).
var demoTree = []struct {
	title, parent string
	children      []string
}{
	{"Home & Living", "", []string{"Kitchen", "Home", "Garden"}},
	{"Leisure", "", []string{"Toys", "Books"}},
	{"Active", "Leisure", []string{"Outdoors", "Sports"}},
}

// demoGiftTag is the tag of every seventh demo item, which the rule
// collection picks.
const demoGiftTag = "gift"

// tree nests the demo categories, tags some items and makes two
// collections: one picked by hand, one by rules.
func (s *Service) tree(ctx context.Context) error {
	for _, g := range demoTree {
		// Another instance seeding at once may have made it: each step
		// is skipped when done.
		t, err := s.Catalog.Tree(ctx)
		if err != nil {
			return err
		}
		if _, done := t.ByName(g.title); done {
			continue
		}
		var parentID int64
		if g.parent != "" {
			p, ok := t.ByName(g.parent)
			if !ok {
				return fmt.Errorf("seed tree: no %q", g.parent)
			}
			parentID = p.ID
		}
		n, err := s.Catalog.CreateCategory(ctx, g.title, parentID)
		if _, lost := catalog.IsTreeError(err); lost {
			continue
		}
		if err != nil {
			return fmt.Errorf("seed tree: %w", err)
		}
		for _, child := range g.children {
			c, ok := t.ByName(child)
			if !ok {
				continue
			}
			if err := s.Catalog.EditCategory(ctx, c.ID, c.Title, n.ID); err != nil {
				return fmt.Errorf("seed tree: %w", err)
			}
		}
	}
	var gifts []int64
	for id := int64(7); id <= DemoItemCount; id += 7 {
		gifts = append(gifts, id)
	}
	if err := s.Catalog.SetTags(ctx, []string{demoGiftTag}, gifts...); err != nil {
		return err
	}
	if s.Collections == nil {
		return nil
	}
	for _, f := range []collections.Form{
		{Title: "Staff picks", Slug: "staff-picks", Kind: collections.Manual,
			Blurb: "What the shop's team reaches for first.", Items: "12, 3, 25, 48, 7, 60, 91, 104, 130, 222"},
		{Title: "Gifts under $30", Slug: "gifts-under-30", Kind: collections.Rule,
			Blurb: "Small presents, every one tagged a gift.", Tag: demoGiftTag, MaxCents: 3000, HasMax: true},
	} {
		if _, err := s.Collections.BySlug(ctx, f.Slug); err == nil {
			continue
		}
		_, err := s.Collections.Save(ctx, 0, f)
		var fe *collections.FieldError
		if err != nil && !errors.As(err, &fe) { // a slug another instance took
			return fmt.Errorf("seed collections: %w", err)
		}
	}
	return nil
}
