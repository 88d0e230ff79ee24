package main

import (
	"testing"

	"storefront/store/storetest"
)

// TestMain runs the package's tests once per Redis backend, taking turns
// with other test binaries on a shared server.
func TestMain(m *testing.M) { storetest.Main(m) }
