package seed_test

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"
	"time"

	"storefront/store/seed"
	"storefront/store/storetest"
	"storefront/wiring"
	"storefront/wiring/wiringtest"
)

// TestDemoPicturesSeeded: with SeedImages on, every demo item has one
// generated picture of its product type in its colour, stored at 320 and
// 640, the same bytes on every run.
func TestDemoPicturesSeeded(t *testing.T) {
	st := wiringtest.New(t, func(o *wiring.Options) { o.SeedImages = true })
	ctx := t.Context()
	ids := make([]int64, seed.DemoItemCount)
	for i := range ids {
		ids[i] = int64(i + 1)
	}
	main, err := st.Media.MainImages(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	if len(main) != seed.DemoItemCount {
		t.Fatalf("%d items have pictures, want %d", len(main), seed.DemoItemCount)
	}
	hashes := map[string]bool{}
	for _, img := range main {
		hashes[img.Hash] = true
		if len(img.Sizes) != 2 || img.Sizes[0].Width != 320 || img.Sizes[1].Width != 640 || img.Sizes[1].Ext != "png" {
			t.Fatalf("sizes %+v", img.Sizes)
		}
	}
	// Items share a picture only when they are the same product type in
	// the same colour.
	sameAs := map[string]string{}
	for _, it := range seed.DemoItems(time.Unix(0, 0)) {
		kind := strings.Join(strings.Fields(it.Name)[1:], " ")
		kind, _, _ = strings.Cut(kind, " No. ")
		h := main[it.ID].Hash
		if other, ok := sameAs[h]; ok && other != kind {
			t.Fatalf("%q and an item of %q share a picture", it.Name, other)
		}
		sameAs[h] = kind
	}
	if len(hashes) < 600 {
		t.Errorf("only %d distinct pictures", len(hashes))
	}
	r, err := st.Media.Media(ctx, main[1].Hash, 640, "png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(r.Bytes))
	if err != nil || img.Bounds() != image.Rect(0, 0, 640, 640) {
		t.Fatalf("decode: %v %v", err, img.Bounds())
	}
	// Seeding again (another instance, a restart) changes nothing.
	if _, err := st.SeedDemo(ctx, storetest.AdminPassword); err != nil {
		t.Fatal(err)
	}
	again := storetest.Must(st.Media.ItemImages(ctx, 1))(t)
	if len(again) != 1 || again[0].Hash != main[1].Hash {
		t.Errorf("after a second seeding: %+v", again)
	}
}

// TestSeedFromSeveralInstancesAtOnce: instances started together on one
// empty database all seed without error (on PostgreSQL they used to
// deadlock on the pictures, inserted in per-process map order), and every
// demo item ends up with exactly one picture.
func TestSeedFromSeveralInstancesAtOnce(t *testing.T) {
	db := storetest.DB(t)
	ctx := t.Context()
	opt := wiringtest.Options()
	opt.SeedImages = true
	const instances = 4
	rdb := storetest.Redis(t)
	stores := make([]*wiring.Services, instances)
	for i := range stores {
		stores[i] = wiring.New(rdb, db, opt, storetest.Logger(t))
		t.Cleanup(stores[i].Close)
	}
	if err := stores[0].Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, instances)
	for _, st := range stores {
		go func() {
			_, err := st.SeedDemo(ctx, storetest.AdminPassword)
			errs <- err
		}()
	}
	for range instances {
		if err := <-errs; err != nil {
			t.Errorf("seed: %v", err)
		}
	}
	var items, pictures int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*), (SELECT COUNT(*) FROM item_images) FROM items`).Scan(&items, &pictures); err != nil {
		t.Fatal(err)
	}
	if items != seed.DemoItemCount || pictures != seed.DemoItemCount {
		t.Errorf("%d items with %d pictures, want %d of each", items, pictures, seed.DemoItemCount)
	}
}
