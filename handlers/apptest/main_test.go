package apptest_test

import (
	"testing"

	"storefront/handlers/apptest"
)

// ownServers are the tests that start servers of their own (an embedded
// Redis, a redis-server or PostgreSQL of the test's) and never use the
// run's shared Redis: they run first, outside the shared servers' lock,
// beside other packages' tests.
var ownServers = []string{
	"TestRedisOutage",
	"TestPostgresOutage",
	"TestSlowRedis",
	"TestSIGTERMUnderLoad",
	"TestStartRidesOutALateAndSlowRedis",
	"TestEmbeddedRedisDiesWithApp",
	"TestDemoPicturesKeptBetweenStarts",
	"TestEmbeddedRedisHeals",
	"TestEmbeddedRedisKeepsCartAcrossKills",
	"TestOwnWriteDropsCachedRead",
	"TestCachedHitZeroRoundTrips",
}

func TestMain(m *testing.M) { apptest.Main(m, ownServers, closeChromium) }
