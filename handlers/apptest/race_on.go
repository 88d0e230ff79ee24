//go:build race

package apptest

// raceBuild is true when the tests run with -race: the app is then built
// with -race too, so its data races fail the run as the tests' own do.
const raceBuild = true
