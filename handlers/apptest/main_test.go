package apptest_test

import (
	"testing"

	"storefront/handlers/apptest"
)

func TestMain(m *testing.M) { apptest.Main(m, closeChromium) }
