package store

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// Small helpers shared across the store's files.

// realErr returns the first error of a pipeline other than redis.Nil (a
// missing key is an answer, not a failure).
func realErr(cmds []redis.Cmder, err error) error {
	if err == nil {
		return nil
	}
	for _, c := range cmds {
		if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) {
			return e
		}
	}
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}

func parseIDs(ss []string) []int64 {
	out := make([]int64, 0, len(ss))
	for _, v := range ss {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			out = append(out, id)
		}
	}
	return out
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
