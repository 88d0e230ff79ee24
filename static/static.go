// Package static holds the embedded CSS, JavaScript and icon and serves them under
// content-hashed URLs, so that they can be cached for a year and a new
// deploy is picked up at once.
package static

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"path"
	"strings"
)

//go:embed css js img
var files embed.FS

// Asset is one embedded file.
type Asset struct {
	Body []byte
	// Gzip is Body compressed once at start-up, so that no request pays
	// for compressing a file that never changes.
	Gzip        []byte
	ContentType string
	Hash        string
}

var assets = loadAssets()

func loadAssets() map[string]Asset {
	out := map[string]Asset{}
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		out[p] = Asset{Body: b, Gzip: gzipped(b), ContentType: contentType(p), Hash: hex.EncodeToString(sum[:])[:12]}
		return nil
	})
	return out
}

// gzipped compresses b at the best level; the cost is paid once.
func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

func contentType(p string) string {
	switch path.Ext(p) {
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	case ".ico":
		return "image/x-icon"
	}
	return "application/octet-stream"
}

// URL returns the content-hashed URL of an embedded file, such as
// /static/css/app.3f2a1b9c0d1e.css for "css/app.css".
func URL(name string) string {
	a, ok := assets[name]
	if !ok {
		return "/static/" + name
	}
	ext := path.Ext(name)
	return "/static/" + strings.TrimSuffix(name, ext) + "." + a.Hash + ext
}

// Lookup finds the file a hashed URL path (without /static/) names. It
// reports whether the hash is the current one: only then may the response
// be cached for good.
func Lookup(urlPath string) (Asset, bool, bool) {
	ext := path.Ext(urlPath)
	base := strings.TrimSuffix(urlPath, ext)
	if i := strings.LastIndexByte(base, '.'); i > 0 {
		name, hash := base[:i]+ext, base[i+1:]
		if a, ok := assets[name]; ok {
			return a, true, a.Hash == hash
		}
	}
	a, ok := assets[urlPath]
	return a, ok, false
}
