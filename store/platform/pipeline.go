package platform

import (
	"context"
	"errors"
	"fmt"

	"github.com/redis/go-redis/v9"
)

// RealErr returns the first error of a pipeline other than redis.Nil (a
// missing key is an answer, not a failure).
func RealErr(cmds []redis.Cmder, err error) error {
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

// CmdErr returns the first error of cmds other than redis.Nil.
func CmdErr(cmds ...redis.Cmder) error {
	for _, c := range cmds {
		if e := c.Err(); e != nil && !errors.Is(e, redis.Nil) {
			return e
		}
	}
	return nil
}

// WrapErr names the operation in err; nil and redis.Nil (an answer, not a
// failure) give nil.
func WrapErr(op string, err error) error {
	if err == nil || errors.Is(err, redis.Nil) {
		return nil
	}
	return fmt.Errorf("%s: %w", op, err)
}

// EvalInPipeline runs script for each key set on one pipeline with
// EVALSHA, falling back to EVAL for the calls that found the script
// missing (a restarted node, a Cluster shard that never saw it). The
// scripts run this way must be idempotent.
func EvalInPipeline(ctx context.Context, rdb redis.UniversalClient, script *redis.Script, calls [][]string, args func(i int) []any) error {
	if len(calls) == 0 {
		return nil
	}
	pipe := rdb.Pipeline()
	cmds := make([]*redis.Cmd, len(calls))
	for i, keys := range calls {
		cmds[i] = script.EvalSha(ctx, pipe, keys, args(i)...)
	}
	_, _ = pipe.Exec(ctx)
	var retry redis.Pipeliner
	for i, cmd := range cmds {
		err := cmd.Err()
		if err == nil || err == redis.Nil {
			continue
		}
		if !redis.HasErrorPrefix(err, "NOSCRIPT") {
			return err
		}
		if retry == nil {
			retry = rdb.Pipeline()
		}
		script.Eval(ctx, retry, calls[i], args(i)...)
	}
	if retry != nil {
		if _, err := retry.Exec(ctx); err != nil && err != redis.Nil {
			return err
		}
	}
	return nil
}
