package main

import (
	"os"
	"testing"

	"storefront/store/storetest"
)

// TestMain runs the package's tests once per Redis backend, taking turns
// with other test binaries on a shared server. startProcess re-runs the
// test binary as the app: that must not go through storetest.Main, which
// would take the lock of the Redis server in its environment, which the
// test that started it holds (and two app processes would wait for each
// other).
func TestMain(m *testing.M) {
	if os.Getenv("STOREFRONT_HELPER_PROCESS") == "1" {
		main()
		os.Exit(0)
	}
	storetest.Main(m)
}
