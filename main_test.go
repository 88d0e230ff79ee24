package main

import (
	"os"
	"testing"

	"storefront/store/storetest"
)

func TestMain(m *testing.M) {
	// startProcess re-runs the test binary as the app. It must not go
	// through storetest.Main, which would take the lock of the Redis
	// server in its environment: the test that started it holds that
	// lock, and two app processes would wait for each other.
	if os.Getenv("STOREFRONT_HELPER_PROCESS") == "1" {
		main()
		os.Exit(0)
	}
	storetest.Main(m)
}
