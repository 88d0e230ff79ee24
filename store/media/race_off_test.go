//go:build !race

package media

// raceBuild is true when the tests run with -race.
const raceBuild = false
