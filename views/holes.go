package views

// Hole names. A hole is a per-visitor part of a page: the page cache
// stores the page as an anonymous visitor sees it and fills every hole in
// per request (handlers/shop/fragments.go has one renderer per name). Anything
// that differs between visitors must sit in a hole; see Hole.
const (
	HoleAccount = "account" // the header's account area: name, cart count, unread count
	HoleFlash   = "flash"   // the one-time message after a redirect
	HoleRecent  = "recent"  // the item page's recently viewed list
	HoleLike    = "like"    // the item page's like box and view count
	HoleReview  = "review"  // the item page's review form: the shopper's own review
)
