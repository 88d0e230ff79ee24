package platform

import (
	"strconv"
	"strings"
)

// writtenKeys appends to out the keys a command (its arguments, name
// first) may change: none for a command that only reads or names no key,
// the positions Redis documents for those that write several keys, and
// the first argument for every other command, which is where Redis puts
// the key of each single-key write. A script's keys are its KEYS (the
// shop's scripts touch only those, as Cluster requires).
func writtenKeys(args []any, out []string) []string {
	if len(args) < 2 {
		return out
	}
	name, _ := args[0].(string)
	name = strings.ToLower(name)
	if _, ok := notWrites[name]; ok {
		return out
	}
	switch name {
	case "eval", "evalsha", "fcall":
		// script, numkeys, keys...
		return appendKeys(out, args, 3, 3+argInt(args, 2))
	case "del", "unlink", "touch", "sunionstore", "sinterstore", "sdiffstore", "pfmerge":
		return appendKeys(out, args, 1, len(args))
	case "mset", "msetnx":
		for i := 1; i < len(args); i += 2 {
			out = appendKeys(out, args, i, i+1)
		}
		return out
	case "rename", "renamenx", "smove", "lmove", "blmove", "rpoplpush", "brpoplpush", "copy", "zrangestore", "geosearchstore":
		return appendKeys(out, args, 1, 3)
	case "zunionstore", "zinterstore", "zdiffstore":
		// destination, numkeys, keys...
		out = appendKeys(out, args, 1, 2)
		return appendKeys(out, args, 3, 3+argInt(args, 2))
	case "blpop", "brpop", "bzpopmin", "bzpopmax":
		// keys..., timeout
		return appendKeys(out, args, 1, len(args)-1)
	case "lmpop", "zmpop":
		// numkeys, keys...
		return appendKeys(out, args, 2, 2+argInt(args, 1))
	case "blmpop", "bzmpop":
		// timeout, numkeys, keys...
		return appendKeys(out, args, 3, 3+argInt(args, 2))
	case "xreadgroup":
		// ... STREAMS key... id...: the first half after STREAMS
		for i := 1; i < len(args); i++ {
			if s, _ := args[i].(string); strings.EqualFold(s, "streams") {
				n := (len(args) - i - 1) / 2
				return appendKeys(out, args, i+1, i+1+n)
			}
		}
		return out
	}
	return appendKeys(out, args, 1, 2)
}

// notWrites are the commands that change no key (reads, connection and
// server commands, pub/sub), so that reads on the main client do not
// empty the cache of what they read.
var notWrites = func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, n := range strings.Fields(`
		get mget strlen getrange substr getbit bitcount bitpos bitfield_ro lcs
		exists type ttl pttl expiretime pexpiretime object memory dump
		hget hgetall hmget hkeys hvals hlen hexists hstrlen hrandfield hscan httl hpttl
		lindex llen lpos lrange
		scard sismember smembers smismember srandmember sscan sdiff sinter sunion sintercard
		zcard zcount zlexcount zmscore zscore zrange zrangebylex zrangebyscore zrank
		zrevrange zrevrangebylex zrevrangebyscore zrevrank zscan zrandmember zdiff zinter zunion
		xlen xrange xrevrange xpending xinfo xread
		pfcount geodist geohash geopos geosearch georadius_ro georadiusbymember_ro
		eval_ro evalsha_ro fcall_ro sort_ro
		scan keys dbsize randomkey
		ping echo hello auth select client info command cluster config time role
		lastsave slowlog latency wait waitaof readonly readwrite debug
		multi exec discard watch unwatch script function
		publish spublish pubsub subscribe psubscribe ssubscribe unsubscribe punsubscribe sunsubscribe`) {
		m[n] = struct{}{}
	}
	return m
}()

// appendKeys appends args[from:to] that are keys (strings or bytes).
func appendKeys(out []string, args []any, from, to int) []string {
	for i := from; i < to && i < len(args); i++ {
		switch v := args[i].(type) {
		case string:
			out = append(out, v)
		case []byte:
			out = append(out, string(v))
		}
	}
	return out
}

// argInt reads args[i] as a count, 0 when it is not one.
func argInt(args []any, i int) int {
	if i >= len(args) {
		return 0
	}
	switch v := args[i].(type) {
	case int:
		return v
	case int64:
		return int(v)
	case string:
		n, _ := strconv.Atoi(v)
		return n
	}
	return 0
}
