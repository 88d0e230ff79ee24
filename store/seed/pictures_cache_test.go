package seed

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestDemoPictureCache: the pictures written to the cache read back the
// same; a damaged or partial file is not used; each program has its own
// file and old ones are pruned.
func TestDemoPictureCache(t *testing.T) {
	// Through the process's memo: drawn once per test binary, whichever
	// test (or backend pass) asks first.
	pics, err := (&Service{}).demoPictures()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := demoPictureCacheFile(dir, exe)
	if path == "" || filepath.Dir(path) != dir {
		t.Fatalf("cache file %q", path)
	}
	if _, ok := loadDemoPictures(path); ok {
		t.Fatal("a missing file was read")
	}
	if err := saveDemoPictures(path, pics); err != nil {
		t.Fatal(err)
	}
	got, ok := loadDemoPictures(path)
	if !ok || len(got) != len(pics) {
		t.Fatalf("read back %d pictures (ok %v), want %d", len(got), ok, len(pics))
	}
	for k, img := range pics {
		if got[k].Hash != img.Hash || len(got[k].Renditions) != len(img.Renditions) {
			t.Fatalf("%s: read back %s, want %s", k, got[k].Hash, img.Hash)
		}
	}

	// A flipped byte anywhere, or a file cut short: drawn again.
	b, _ := os.ReadFile(path)
	for _, at := range []int{0, 40, len(b) / 3, len(b) / 2, len(b) - 1} {
		damaged := append([]byte{}, b...)
		damaged[at] ^= 0xff
		os.WriteFile(path, damaged, 0o644)
		if _, ok := loadDemoPictures(path); ok {
			t.Errorf("a file with byte %d of %d flipped was used", at, len(b))
		}
	}
	os.WriteFile(path, b[:len(b)/2], 0o644)
	if _, ok := loadDemoPictures(path); ok {
		t.Error("a file cut short was used")
	}

	// Files of other programs: the newest few stay.
	for i := range 6 {
		old := filepath.Join(dir, "demo-pictures-old"+string(rune('a'+i))+".gob")
		os.WriteFile(old, []byte("x"), 0o644)
		when := time.Now().Add(-time.Duration(10-i) * time.Hour)
		os.Chtimes(old, when, when)
	}
	if err := saveDemoPictures(path, pics); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "demo-pictures-*.gob"))
	if len(left) != 4 {
		t.Errorf("%d cache files left, want 4: %v", len(left), left)
	}
	if _, ok := loadDemoPictures(path); !ok {
		t.Error("pruning removed the current program's file")
	}
}
