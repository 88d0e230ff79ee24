// Package shop answers the shop's pages: the home page, the catalog with
// its search, the item page (served through the page cache, with the
// visitor's own parts punched in per request), item pictures and the live
// row for scripts, the cart, likes and reviews, checkout, a shopper's
// orders (a guest's through a signed link) and a member's returns. Tests:
// through the real router in handlers/ (shop_test.go, search_test.go,
// pagecache_test.go, cart_test.go, checkout_test.go, orders_test.go,
// returns_test.go, reviews_test.go, images_test.go, engage_test.go for
// likes) and the suites in handlers/apptest.
package shop

import (
	"context"
	"time"

	"storefront/handlers/web"
	"storefront/store/addressbook"
	"storefront/store/analytics"
	"storefront/store/board"
	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/collections"
	"storefront/store/media"
	"storefront/store/merchant"
	"storefront/store/orders"
	"storefront/store/pagecache"
	"storefront/store/pagecache/pagebody"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/returns"
	"storefront/store/reviews"
	"storefront/store/search"
	"storefront/store/sessions"
	"storefront/store/social"
)

// Catalog is what the shop reads of the catalog.
type Catalog interface {
	Item(ctx context.Context, id int64) (catalog.Item, error)
	Items(ctx context.Context, ids []int64) (map[int64]catalog.Item, error)
	// CatalogRows reads rows for the cart and its answers, archived ones too.
	CatalogRows(ctx context.Context, ids []int64) (map[int64]catalog.Item, error)
	ItemNames(ctx context.Context, ids []int64) (map[int64]string, error)
	ItemRow(ctx context.Context, id int64) (catalog.CachedRow, bool, error)
	// Variants lists an item's variants; VariantsByID reads a cart's.
	Variants(ctx context.Context, itemID int64) ([]catalog.Variant, error)
	VariantsByID(ctx context.Context, ids []int64) (map[int64]catalog.Variant, error)
	// Tree is the catalog tree; MovedCategory the category that had a
	// path before a rename or a move.
	Tree(ctx context.Context) (*catalog.Tree, error)
	MovedCategory(ctx context.Context, path string) (*catalog.CategoryNode, *catalog.Tree, error)
}

// Search is the catalog's full-text search and its departments.
type Search interface {
	Search(ctx context.Context, q search.SearchQuery) (search.SearchResult, error)
	CategoryExists(ctx context.Context, name string) (bool, error)
}

// Popular is the most viewed items.
type Popular interface {
	PopularItems(ctx context.Context, n int64) ([]analytics.ItemViews, error)
}

// Pages serves item pages through the page cache.
type Pages interface {
	ServeItemPage(ctx context.Context, req pagecache.ItemPageRequest) (pagecache.ItemView, error)
}

// Sessions reads a visitor's recently viewed items, and an account (an
// admin opening someone's order).
type Sessions interface {
	RecentlyViewed(ctx context.Context, token string) ([]int64, error)
	UserByID(ctx context.Context, id int64) (sessions.User, error)
	// Email is an account's address (a discount code's per-customer cap
	// counts it with guests' uses of the same address).
	Email(ctx context.Context, userID int64) (sessions.AccountEmail, error)
}

// Likes are the items' likes and the home page's like boards.
type Likes interface {
	SetLike(ctx context.Context, itemID, userID int64, mode string) (social.LikeResult, error)
	LikeBoards(ctx context.Context, n int64) ([]social.ItemLikes, []int64, error)
}

// Reviews are the items' reviews and ratings.
type Reviews interface {
	SaveReview(ctx context.Context, itemID, userID int64, rating int, body string) (bool, error)
	MyReview(ctx context.Context, itemID, userID int64) (reviews.Review, bool, error)
	Ratings(ctx context.Context, ids []int64) (map[int64]reviews.Rating, error)
}

// Articles are the board's top articles on the home page.
type Articles interface {
	Articles(ctx context.Context, q board.ArticleQuery) (board.ArticlePage, error)
}

// Carts are the visitors' carts.
type Carts interface {
	Cart(ctx context.Context, owner cart.Owner) (cart.Cart, error)
	SetLine(ctx context.Context, owner cart.Owner, l cart.Line) (cart.Cart, error)
	SetCode(ctx context.Context, owner cart.Owner, code string) error
}

// Orders are checkout and a shopper's orders.
type Orders interface {
	Checkout(ctx context.Context, req orders.CheckoutRequest) (orders.Order, error)
	Shipping() orders.ShippingRates
	LastAddress(ctx context.Context, userID int64) (orders.Address, bool, error)
	Orders(ctx context.Context, userID int64, limit, offset int) ([]orders.Order, int, error)
	Order(ctx context.Context, userID, id int64) (orders.Order, error)
	OrderAny(ctx context.Context, id int64) (orders.Order, error)
	GuestOrder(ctx context.Context, id int64) (orders.Order, error)
	MoveOrder(ctx context.Context, id, ownerID int64, to, actor string) (orders.Order, error)
	PayNow(ctx context.Context, o orders.Order, back orders.ReturnURLs) (string, error)
	CanPayNow(o orders.Order) bool
	PaymentMethods() []orders.PaymentMethod
	PaymentByCode(code string) (orders.PaymentMethod, bool)
}

// Returns are the returns of a shopper's delivered orders.
type Returns interface {
	Ask(ctx context.Context, req returns.Request) (returns.Return, error)
	ForOrder(ctx context.Context, orderID int64) ([]returns.Return, error)
	Returnable(ctx context.Context, orderID int64) (map[returns.LineKey]returns.Line, error)
	Deadline(o orders.Order) (time.Time, bool)
}

// CardWebhook checks and handles the card payment provider's events.
type CardWebhook interface {
	HandleWebhook(ctx context.Context, payload []byte, signature string) (string, error)
}

// SavedAddresses are a member's address book, which checkout offers.
type SavedAddresses interface {
	List(ctx context.Context, userID int64) ([]addressbook.Entry, error)
}

// Pictures are the stored pictures of items.
type Pictures interface {
	Media(ctx context.Context, hash string, width int, ext string) (media.Rendition, error)
	HasMedia(ctx context.Context, hash string, width int, ext string) (bool, error)
	MainImages(ctx context.Context, itemIDs []int64) (map[int64]media.ItemImage, error)
	ItemImages(ctx context.Context, itemID int64) ([]media.ItemImage, error)
}

// Deps are the domain services the shop reads and changes.
type Deps struct {
	Catalog  Catalog
	Search   Search
	Popular  Popular
	Pages    Pages
	Sessions Sessions
	Likes    Likes
	Reviews  Reviews
	Articles Articles
	Carts    Carts
	Orders   Orders
	Pictures Pictures
	Pricing  Pricing
	// Addresses is optional: without it checkout offers the last order's
	// address alone.
	Addresses SavedAddresses
	// Card takes the card payment provider's webhook; nil when card
	// payments are off.
	Card    CardWebhook
	Returns Returns
	Sitemap Sitemap
	// Home is the home page as the merchant wrote it.
	Home HomeContent
	// Collections are the merchant's collections.
	Collections Collections
}

// Collections are the merchant's collections of items (store/collections).
type Collections interface {
	BySlug(ctx context.Context, slug string) (collections.Collection, error)
	Page(ctx context.Context, c collections.Collection, page, perPage int) ([]int64, int, error)
}

// Sitemap is the sitemaps search engines read (store/sitemap).
type Sitemap interface {
	File(ctx context.Context, name string) ([]byte, bool, error)
}

// HomeContent is the merchant's home page and information pages, read
// from memory.
type HomeContent interface {
	Home() merchant.Home
	Page(slug string) (merchant.Page, error)
}

// Config is the shop's page sizes and limits.
type Config struct {
	ItemsPerPage int
	// MaxLineQty is the most of one item a cart line holds.
	MaxLineQty int
	// Like and Review limit each per account.
	Like, Review ratelimit.Rate
	// ShopURL is the shop's address (SHOP_URL, no trailing slash): the
	// pages a payment provider sends the shopper back to are on it, never
	// on the Host a request named.
	ShopURL string
}

// Handler answers the shop's routes.
type Handler struct {
	cfg Config
	web *web.Kit
	// holes are per-visitor parts of cached pages rendered lately.
	holes       *platform.Memo[any, *pagebody.Fill]
	catalog     Catalog
	search      Search
	popular     Popular
	pages       Pages
	sessions    Sessions
	likes       Likes
	reviews     Reviews
	articles    Articles
	carts       Carts
	orders      Orders
	pictures    Pictures
	pricing     Pricing
	saved       SavedAddresses
	card        CardWebhook
	returns     Returns
	sitemap     Sitemap
	home        HomeContent
	collections Collections
}

// New builds the shop area.
func New(cfg Config, kit *web.Kit, d Deps) *Handler {
	return &Handler{cfg: cfg, web: kit, catalog: d.Catalog, search: d.Search, popular: d.Popular, pages: d.Pages,
		sessions: d.Sessions, likes: d.Likes, reviews: d.Reviews, articles: d.Articles, carts: d.Carts, orders: d.Orders,
		pictures: d.Pictures, pricing: d.Pricing, saved: d.Addresses, card: d.Card, returns: d.Returns, sitemap: d.Sitemap, home: d.Home, collections: d.Collections,
		holes: platform.NewMemo[any, *pagebody.Fill](holeMemoMax)}
}
