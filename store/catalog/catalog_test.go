package catalog_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/storetest"
	"storefront/wiring/wiringtest"
)

// TestItemChangesAreAnnounced: every admin change of an item reaches the
// listeners once it committed (the page cache and search listen), and
// drops the item's row-cache copy at once.
func TestItemChangesAreAnnounced(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	var mu sync.Mutex
	var heard []string
	st.Catalog.OnChange(func(_ context.Context, c catalog.Change) error {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, fmt.Sprint(c.IDs, c.Search))
		return nil
	})
	if err := st.Catalog.ScheduleRow(ctx, 5, time.Minute); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Catalog.CacheRows(ctx); err != nil {
		t.Fatal(err)
	}
	if n := storetest.Must(st.Redis().Exists(ctx, keys.RowCache(5)).Result())(t); n != 1 {
		t.Fatal("the row was not cached")
	}
	it, err := st.Catalog.UpdateItem(ctx, 5, catalog.ItemEdit{Name: "Renamed", PriceCents: 100, Stock: 3, Category: "Books"})
	if err != nil || it.Name != "Renamed" {
		t.Fatalf("update: %+v %v", it, err)
	}
	if n := storetest.Must(st.Redis().Exists(ctx, keys.RowCache(5)).Result())(t); n != 0 {
		t.Error("the edited item's cached row outlived the edit")
	}
	if names, _ := st.Catalog.ItemNames(ctx, []int64{5}); names[5] != "Renamed" {
		t.Errorf("name after the edit: %q", names[5])
	}
	if _, err := st.Catalog.SetItemArchived(ctx, 6, true); err != nil {
		t.Fatal(err)
	}
	if changed, err := st.Catalog.SetItemArchived(ctx, 6, true); err != nil || changed {
		t.Fatalf("archiving twice: %v %v", changed, err)
	}
	created, err := st.Catalog.CreateItem(ctx, catalog.NewItem{Name: "New thing", PriceCents: 500, Stock: 1, Category: "Books"})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"[5] true", "[6] true", fmt.Sprintf("[%d] true", created.ID)}
	if fmt.Sprint(heard) != fmt.Sprint(want) {
		t.Errorf("heard %v, want %v (an archive that changed nothing is not announced)", heard, want)
	}
}

func TestCatalogRows(t *testing.T) {
	st := wiringtest.New(t)
	rows, err := st.Catalog.CatalogRows(t.Context(), []int64{1, 2, 999999})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[1].Name == "" || rows[2].PriceCents <= 0 {
		t.Errorf("rows %+v", rows)
	}
}

// TestCreateItemConcurrently: admins creating items at once get distinct
// ids and slugs, every one stored.
func TestCreateItemConcurrently(t *testing.T) {
	st := wiringtest.New(t)
	ctx := t.Context()
	var wg sync.WaitGroup
	ids := make(chan int64, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			it, err := st.Catalog.CreateItem(ctx, catalog.NewItem{Name: "Same Name", PriceCents: 100, Stock: 1, Category: "Home"})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- it.ID
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] {
			t.Fatalf("id %d twice", id)
		}
		seen[id] = true
	}
	if len(seen) != 8 {
		t.Fatalf("%d items created, want 8", len(seen))
	}
}
