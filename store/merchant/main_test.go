package merchant_test

import (
	"testing"

	"storefront/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }
