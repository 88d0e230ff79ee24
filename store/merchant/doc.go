// Package merchant owns what the merchant makes the shop their own with:
// its settings (name, currency, contact email, postal address), which
// every page, title and email shows; the home page's words; and the
// information pages (policies, contact) linked from every footer.
//
// Tables: shop_settings (one row, absent until the first save: the
// knobs' defaults hold until then), home_page (likewise), info_pages (one
// row per page, by slug). Redis: keys.SettingsChannel, on which
// a saved change is announced.
//
// Invariants:
//   - A page never pays for the settings: each instance holds them in
//     memory (Current), read at start and again when any instance
//     announces a change (and on every resubscription, since messages
//     sent while the connection was down are lost).
//   - What the admin typed is checked whole before anything is written
//     (Normalize): a *FieldError names the field and says why, and
//     nothing changes. Text is plain: markup is refused, never stored.
//   - Amounts are integers in the currency's minor unit (Currency.Digits
//     decimals); an order records the currency it was priced in
//     (store/orders), so a later change never reinterprets it.
//
// Tests: merchant_test.go and amount_test.go here; the admin's forms and
// what the pages show in handlers (settings_test.go, info_pages_test.go,
// admin_money_test.go).
package merchant
