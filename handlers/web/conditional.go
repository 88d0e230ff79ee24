package web

import (
	"strconv"
	"strings"
)

// AcceptsGzip reads Accept-Encoding: gzip (or *) with a non-zero quality.
func AcceptsGzip(header string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		ok := qualityNonZero(params)
		switch name {
		case "gzip", "x-gzip":
			return ok
		case "*":
			star = ok
		}
	}
	return star
}

func qualityNonZero(params string) bool {
	for _, p := range strings.Split(params, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
		if strings.EqualFold(strings.TrimSpace(k), "q") {
			q, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return err == nil && q > 0
		}
	}
	return true
}

// ETagMatches applies If-None-Match (weak comparison, as RFC 9110 asks).
func ETagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
