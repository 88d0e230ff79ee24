// Package views holds the shop's pages and their parts as templ
// components: pure functions of typed view models (models.go and the
// structs beside each page), which never read cookies, the session or the
// store. Pages are exported (ItemPage, CartPage, ...) and wrapped in one
// Layout; the per-visitor parts of a cached page are holes (holes.go),
// filled per request by the handlers. The emails are in views/email.
//
// The *.templ files are the source; the *_templ.go files beside them are
// generated and committed: after editing a .templ file run
//
//	go tool templ generate -include-version=false
//
// (without the flag every generated file carries templ's version line
// where the package's doc comment goes, and the package's synopsis became
// that line; TestPackageDocIsOurs fails then). Tests: models_test.go and
// text_test.go here; the pages through the router in handlers.
package views
