package seed

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"storefront/store/media"
)

// The generated demo pictures are kept in a file between starts of the
// same program: drawing them costs about a CPU second (more in a -race
// build), reading them back milliseconds. The file is named after the
// program (see demoPictureCacheFile), so a changed program draws afresh;
// it is only a cache: a missing, damaged or unreadable file means
// drawing again.

// demoPictureFile is what the cache file holds.
type demoPictureFile struct {
	Pictures map[string]media.ProcessedImage
}

// demoPictureCacheFile names the cache file for the program at exe in dir:
// the first 16 hex digits of the program's SHA-256, so that every build
// of different code has its own. It returns "" if exe cannot be read.
func demoPictureCacheFile(dir, exe string) string {
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return filepath.Join(dir, "demo-pictures-"+hex.EncodeToString(h.Sum(nil))[:16]+".gob")
}

// loadDemoPictures reads the cache file; ok is false unless it holds every
// demo picture intact (the file's checksum, then each picture's hash).
func loadDemoPictures(path string) (map[string]media.ProcessedImage, bool) {
	if path == "" {
		return nil, false
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) < sha256.Size {
		return nil, false
	}
	// The file starts with the SHA-256 of the rest: every byte of every
	// rendition is checked, not only what the pictures' hashes cover.
	sum, payload := b[:sha256.Size], b[sha256.Size:]
	if got := sha256.Sum256(payload); !bytes.Equal(sum, got[:]) {
		return nil, false
	}
	var f demoPictureFile
	if err := gob.NewDecoder(bytes.NewReader(payload)).Decode(&f); err != nil {
		return nil, false
	}
	if len(f.Pictures) != demoPictureCount() {
		return nil, false
	}
	for _, img := range f.Pictures {
		if len(img.Renditions) == 0 {
			return nil, false
		}
		sum := sha256.Sum256(img.Renditions[len(img.Renditions)-1].Bytes)
		if img.Hash != hex.EncodeToString(sum[:12]) {
			return nil, false
		}
	}
	return f.Pictures, true
}

// saveDemoPictures writes the cache file whole or not at all (a temporary
// file renamed into place), so instances starting together never read a
// half-written one, and removes the files of older programs but the most
// recent few.
func saveDemoPictures(path string, pics map[string]media.ProcessedImage) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(demoPictureFile{Pictures: pics}); err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	sum := sha256.Sum256(buf.Bytes())
	tmp, err := os.CreateTemp(dir, ".demo-pictures-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(sum[:], buf.Bytes()...)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	pruneDemoPictureFiles(dir, path, 4)
	return nil
}

// pruneDemoPictureFiles keeps the newest keep cache files in dir (path
// among them) and removes the others: every rebuilt program leaves one.
func pruneDemoPictureFiles(dir, path string, keep int) {
	matches, err := filepath.Glob(filepath.Join(dir, "demo-pictures-*.gob"))
	if err != nil || len(matches) <= keep {
		return
	}
	type entry struct {
		name string
		mod  int64
	}
	var files []entry
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil {
			files = append(files, entry{m, fi.ModTime().UnixNano()})
		}
	}
	slices.SortFunc(files, func(a, b entry) int { return cmp.Compare(b.mod, a.mod) })
	for i, f := range files {
		if i >= keep && f.name != path {
			os.Remove(f.name)
		}
	}
}
