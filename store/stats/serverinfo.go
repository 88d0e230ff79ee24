package stats

import (
	"bufio"
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/redis/go-redis/v9"

	"storefront/store/platform"
)

// RedisInfo describes the Redis the shop runs on, for the dashboard. On a
// Cluster, memory and keys are summed over the masters.
type RedisInfo struct {
	Mode    string // embedded, single, cluster or miniredis
	Version string // "" when the server does not say (miniredis)
	// UsedMemory is in bytes; -1 when the server does not say.
	UsedMemory int64
	// Keys is the number of keys in the shop's database.
	Keys int64
	// Masters is how many servers hold data (1 unless a Cluster).
	Masters int
}

// RedisInfo reads the server's version, memory and key count: INFO and
// DBSIZE on every master.
func (s *Service) RedisInfo(ctx context.Context) (RedisInfo, error) {
	info := RedisInfo{Mode: s.opt.RedisMode, UsedMemory: -1}
	var mu sync.Mutex
	err := platform.ForEachMaster(ctx, s.rdb, func(ctx context.Context, c redis.UniversalClient) error {
		pipe := c.Pipeline()
		text := pipe.Info(ctx)
		size := pipe.DBSize(ctx)
		if _, err := pipe.Exec(ctx); err != nil {
			return err
		}
		fields := parseInfo(text.Val())
		mu.Lock()
		defer mu.Unlock()
		info.Masters++
		info.Keys += size.Val()
		if v := fields["redis_version"]; v != "" {
			info.Version = v
		}
		if m, err := strconv.ParseInt(fields["used_memory"], 10, 64); err == nil {
			info.UsedMemory = max(info.UsedMemory, 0) + m
		}
		return nil
	})
	if err != nil {
		return info, fmt.Errorf("redis info: %w", err)
	}
	return info, nil
}

// parseInfo reads INFO's "name:value" lines.
func parseInfo(text string) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, "#") {
			out[k] = v
		}
	}
	return out
}

// DatabaseSize is the database's size on disk in bytes: SQLite's pages
// times their size, or PostgreSQL's pg_database_size.
func (s *Service) DatabaseSize(ctx context.Context) (int64, error) {
	q := `SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()`
	if s.dbKind == platform.DBPostgres {
		q = `SELECT pg_database_size(current_database())`
	}
	var n int64
	if err := s.db.QueryRowContext(ctx, q).Scan(&n); err != nil {
		return 0, fmt.Errorf("database size: %w", err)
	}
	return n, nil
}
