package main

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"runtime/debug"
)

// buildID names this build of the program, which cached pages carry in
// their generation so that a deploy that changes templates serves no page
// the old build rendered: BUILD_ID when set, else the VCS revision the
// binary was built from when its tree had no uncommitted changes, else a
// hash of the binary itself (go run and test binaries carry no revision).
func buildID(configured string) string {
	if configured != "" {
		return configured
	}
	if info, ok := debug.ReadBuildInfo(); ok {
		var rev string
		modified := false
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if rev != "" && !modified {
			return rev
		}
	}
	return executableHash()
}

// executableHash is the SHA-256 of the running binary, shortened; "" when
// it cannot be read (pages then carry no build).
func executableHash() string {
	path, err := os.Executable()
	if err != nil {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}
