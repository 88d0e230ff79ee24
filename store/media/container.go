package media

import (
	"bytes"
	"encoding/binary"
)

// checkContainer refuses files that carry something after the picture
// (a ZIP, a script, a page): the container must end where the picture
// ends, and no markup a browser would sniff may appear anywhere.
func checkContainer(format string, data []byte) error {
	if hasMarkup(data) {
		return ErrImagePolyglot
	}
	var end int
	var ok bool
	switch format {
	case "png":
		end, ok = pngEnd(data)
	case "jpeg":
		end, ok = jpegEnd(data)
	case "gif":
		end, ok = len(data), len(data) > 0 && data[len(data)-1] == 0x3B
	case "webp":
		if len(data) >= 12 {
			end, ok = 8+int(binary.LittleEndian.Uint32(data[4:8])), true
		}
	default:
		return ErrImageFormat
	}
	if !ok {
		return ErrImageDamaged
	}
	if end != len(data) {
		return ErrImagePolyglot
	}
	return nil
}

// markup is what a browser sniffing a file would take for a page or a
// script, in lower case.
var markup = [][]byte{[]byte("<script"), []byte("<html"), []byte("<?php"), []byte("<svg"), []byte("<!doctype"), []byte("<body"), []byte("<iframe")}

// hasMarkup reports whether any of markup appears in data, in any case
// (without a lower-cased copy of the upload).
func hasMarkup(data []byte) bool {
	for i := bytes.IndexByte(data, '<'); i >= 0; {
		rest := data[i:]
		for _, m := range markup {
			if len(rest) >= len(m) && bytes.EqualFold(rest[:len(m)], m) {
				return true
			}
		}
		j := bytes.IndexByte(rest[1:], '<')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// pngEnd walks the PNG chunks to the end of IEND.
func pngEnd(data []byte) (int, bool) {
	i := 8
	for i+12 <= len(data) {
		n := int(binary.BigEndian.Uint32(data[i : i+4]))
		if n < 0 || i+12+n > len(data) {
			return 0, false
		}
		typ := string(data[i+4 : i+8])
		i += 12 + n
		if typ == "IEND" {
			return i, true
		}
	}
	return 0, false
}

// jpegEnd is the offset after the last end-of-image marker; a JPEG file
// ends with it.
func jpegEnd(data []byte) (int, bool) {
	i := bytes.LastIndex(data, []byte{0xFF, 0xD9})
	if i < 0 {
		return 0, false
	}
	return i + 2, true
}
