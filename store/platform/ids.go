package platform

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// ParseIDs reads ids as Redis returns them, skipping what is not a number.
func ParseIDs(ss []string) []int64 {
	out := make([]int64, 0, len(ss))
	for _, v := range ss {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out
}

// FormatID is an id as Redis stores it.
func FormatID(id int64) string { return strconv.FormatInt(id, 10) }

// RandomHex is n random bytes in hex: lock tokens, instance names,
// throwaway passwords.
func RandomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// UnixTime is t seconds after the epoch, or the zero time for 0 (a column
// not set yet).
func UnixTime(t int64) time.Time {
	if t == 0 {
		return time.Time{}
	}
	return time.Unix(t, 0)
}

// Ints reads an HMGET reply as n numbers: 0 for a missing field or one
// that is not a number, and for places past the reply's end.
func Ints(vals []any, n int) []int64 {
	out := make([]int64, n)
	for i, v := range vals {
		if str, ok := v.(string); ok && i < n {
			out[i], _ = strconv.ParseInt(str, 10, 64)
		}
	}
	return out
}

// PairRef names a thing by two ids, "<a>-<b>": a comment by its article
// and number, a review by its item and author. Pages carry it in their
// hooks and moderation routes take it.
func PairRef(a, b int64) string { return FormatID(a) + "-" + FormatID(b) }

// ParsePairRef reads a PairRef; ok only for two positive ids.
func ParsePairRef(ref string) (a, b int64, ok bool) {
	x, y, found := strings.Cut(ref, "-")
	if !found {
		return 0, 0, false
	}
	a, err1 := strconv.ParseInt(x, 10, 64)
	b, err2 := strconv.ParseInt(y, 10, 64)
	return a, b, err1 == nil && err2 == nil && a > 0 && b > 0
}
