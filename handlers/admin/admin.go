// Package admin answers the shop's administrators (every route sits
// behind web.Kit.RequireAdmin): the dashboard, the cache controls (purge,
// the row cache, the views rescale), the catalog (items, pictures,
// archiving, the CSV export and import), orders (moving along their
// lifecycle, shipping with the carrier's tracking number, the admin's
// notes, the CSV export), returns (approve, reject, receive with the
// stock back, refund), the sales page, the email outbox, and
// moderation (readers' reports, hidden or dismissed; hiding articles,
// comments and reviews and banning accounts, each undone from the
// moderation page). Every change is logged as an
// admin action (web.Kit.Audit). Tests: through the real router in
// handlers/ (admin_items_test.go, admin_orders_test.go, images_test.go,
// moderation_test.go, board_reports_test.go, dashboard_test.go, dashboard_stats_test.go,
// admin_notes_test.go, admin_csv_test.go, admin_import_test.go,
// admin_sales_test.go, mail_test.go, returns_test.go) and the
// browser suites in handlers/apptest.
package admin

import (
	"context"
	"time"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/catalog"
	"storefront/store/collections"
	"storefront/store/media"
	"storefront/store/orders"
	"storefront/store/returns"
	"storefront/store/reviews"
	"storefront/store/sales"
	"storefront/store/sessions"
	"storefront/store/stats"
)

// Catalog is what the admin reads and changes of the catalog.
type Catalog interface {
	Item(ctx context.Context, id int64) (catalog.Item, error)
	Items(ctx context.Context, ids []int64) (map[int64]catalog.Item, error)
	Categories(ctx context.Context) ([]catalog.Category, error)
	AdminItems(ctx context.Context, q catalog.AdminItemQuery) (catalog.ItemPage, error)
	CreateItem(ctx context.Context, n catalog.NewItem) (catalog.Item, error)
	UpdateItem(ctx context.Context, id int64, e catalog.ItemEdit) (catalog.Item, error)
	Tags(ctx context.Context, itemID int64) ([]string, error)
	SetItemArchived(ctx context.Context, id int64, archived bool) (bool, error)
	Variants(ctx context.Context, itemID int64) ([]catalog.Variant, error)
	SaveVariants(ctx context.Context, itemID int64, set catalog.VariantSet) error
	ScheduleRow(ctx context.Context, id int64, delay time.Duration) error
	EachItem(ctx context.Context, f func(catalog.Item) error) error
	CheckImport(ctx context.Context, rows []catalog.ImportRow, opt catalog.ImportOptions) ([]catalog.RowProblem, error)
	QueueImport(ctx context.Context, admin string, rows []catalog.ImportRow, opt catalog.ImportOptions) (int64, error)
	ImportJob(ctx context.Context, id int64) (catalog.ImportJob, error)
}

// Pictures are an item's pictures, and the processing of uploads.
type Pictures interface {
	ProcessImage(ctx context.Context, data []byte, maxBytes int64) (media.ProcessedImage, error)
	ItemImages(ctx context.Context, itemID int64) ([]media.ItemImage, error)
	AddItemImage(ctx context.Context, itemID int64, img media.ProcessedImage) (int, error)
	DeleteItemImage(ctx context.Context, itemID int64, position int) error
	StoreImage(ctx context.Context, img media.ProcessedImage) error
	DropUnusedImage(ctx context.Context, hash string) error
}

// Pages purges cached item pages.
type Pages interface {
	PurgeItemPages(ctx context.Context, itemIDs ...int64) (int, error)
	PurgeAllPages(ctx context.Context) (int, error)
}

// Views rescales the item view counts.
type Views interface {
	Rescale(ctx context.Context) error
}

// Orders lists every shopper's orders and moves them along.
type Orders interface {
	AdminOrders(ctx context.Context, q orders.AdminOrderQuery) ([]orders.AdminOrder, int, error)
	MoveOrder(ctx context.Context, id, ownerID int64, to, actor string) (orders.Order, error)
	EditOrder(ctx context.Context, req orders.EditRequest) (orders.Edit, error)
	OrderAny(ctx context.Context, id int64) (orders.Order, error)
	AddNote(ctx context.Context, orderID int64, author, body string) (orders.Note, error)
	Notes(ctx context.Context, orderID int64) ([]orders.Note, error)
	ShipOrder(ctx context.Context, id int64, tracking, actor string) (orders.Order, error)
	LinesOf(ctx context.Context, ids []int64) (map[int64][]orders.OrderLine, error)
	PaymentByCode(code string) (orders.PaymentMethod, bool)
	// The refunds owed: the list, "try again now", "refunded by hand",
	// and a return's refund in the ledger.
	OwedRefunds(ctx context.Context, limit int) ([]orders.Refund, error)
	RetryRefund(ctx context.Context, id int64) (orders.Refund, error)
	SettleRefundByHand(ctx context.Context, id int64, note, actor string) (orders.Refund, error)
	RefundFor(ctx context.Context, orderID int64, reason string) (orders.Refund, bool, error)
}

// Sales reads the sales page's numbers.
type Sales interface {
	Summary(ctx context.Context, p sales.Period) (sales.Summary, error)
	TopSellers(ctx context.Context, p sales.Period) ([]sales.Seller, error)
	Buckets(ctx context.Context, p sales.Period) ([]sales.Bucket, error)
	LowStock(ctx context.Context) ([]sales.LowItem, error)
	ToFulfil(ctx context.Context, limit int) (int, []sales.FulfilOrder, error)
	LowVariants(ctx context.Context) ([]sales.LowVariant, error)
	Setup(ctx context.Context) (sales.SetupFacts, error)
}

// Articles hides articles and comments, shows them again and lists the
// hidden ones; it lists what readers reported and dismisses reports.
type Articles interface {
	HideArticle(ctx context.Context, id int64, moderator string) (board.Article, error)
	UnhideArticle(ctx context.Context, id int64) (board.Article, error)
	HideComment(ctx context.Context, articleID, commentID int64) (board.Comment, error)
	UnhideComment(ctx context.Context, articleID, commentID int64) (board.Comment, error)
	HiddenArticles(ctx context.Context, n int64) ([]board.HiddenArticle, int64, error)
	HiddenComments(ctx context.Context, n int64) ([]board.HiddenComment, int64, error)
	OpenReports(ctx context.Context, n int64) ([]board.ReportedThing, int64, error)
	DismissReports(ctx context.Context, ref string) error
}

// Reviews hides items' reviews, shows them again and lists them.
type Reviews interface {
	AdminItemReviews(ctx context.Context, itemID int64) ([]reviews.Review, reviews.Rating, error)
	HideReview(ctx context.Context, itemID, userID int64, moderator string) (reviews.Review, error)
	UnhideReview(ctx context.Context, itemID, userID int64) (reviews.Review, error)
	HiddenReviews(ctx context.Context, n int) ([]reviews.HiddenReview, int, error)
}

// Accounts bans accounts, lifts bans and lists the banned.
type Accounts interface {
	BanUser(ctx context.Context, name string) (sessions.User, int, error)
	UnbanUser(ctx context.Context, name string) (sessions.User, bool, error)
	BannedUsers(ctx context.Context, n int) ([]sessions.BannedUser, int, error)
	UserByID(ctx context.Context, id int64) (sessions.User, error)
	TwoFactor(ctx context.Context, userID int64) (sessions.TwoFactor, error)
}

// Returns lists the returns and takes the admin's steps on them.
type Returns interface {
	Latest(ctx context.Context, limit int) ([]returns.Return, error)
	Get(ctx context.Context, id int64) (returns.Return, error)
	Act(ctx context.Context, id int64, action string, restock bool, actor string) (returns.Return, error)
	SettleByHand(ctx context.Context, id int64, note, actor string) (returns.Return, error)
	RefundCents(ctx context.Context, r returns.Return) (int64, error)
}

// Stats reads the dashboard's numbers.
type Stats interface {
	Dashboard(ctx context.Context) (stats.Dashboard, error)
}

// Deps are the domain services the admin reads and changes.
type Deps struct {
	Catalog  Catalog
	Pictures Pictures
	Pages    Pages
	Views    Views
	Orders   Orders
	Articles Articles
	Reviews  Reviews
	Accounts Accounts
	Stats    Stats
	Pricing  Pricing
	Sales    Sales
	Outbox   Outbox
	Returns  Returns
	Merchant Merchant
	Demo     Demo
	Staff    Staff
	Audit    AuditLog
	// Tree edits the catalog tree; Collections the merchant's collections.
	Tree        Tree
	Collections Collections
}

// Tree is the catalog tree's edits (store/catalog).
type Tree interface {
	Tree(ctx context.Context) (*catalog.Tree, error)
	CreateCategory(ctx context.Context, title string, parentID int64) (*catalog.CategoryNode, error)
	EditCategory(ctx context.Context, id int64, title string, parentID int64) error
}

// Collections are the merchant's collections (store/collections).
type Collections interface {
	List(ctx context.Context) ([]collections.Collection, error)
	BySlug(ctx context.Context, slug string) (collections.Collection, error)
	ByID(ctx context.Context, id int64) (collections.Collection, error)
	Save(ctx context.Context, id int64, f collections.Form) (collections.Collection, error)
}

// Settings are the knobs in force that the dashboard shows and the
// uploads obey.
type Settings struct {
	Instance        string // this instance, as leases and reports name it
	SessionLimit    int64
	PageCacheTTL    time.Duration
	PageCacheTop    int64
	RescaleInterval time.Duration
	ViewedKeep      int64
	StatsInterval   time.Duration
	MaxImageBytes   int64 // the largest picture upload accepted
	// SupportRefundLimit is the largest refund a support role may give,
	// in the minor unit.
	SupportRefundLimit int64
	// StaffRules are the admin routes' groups: the dashboard links only
	// the pages a role may open.
	StaffRules *web.StaffRules
}

// Handler answers the admin routes.
type Handler struct {
	cfg         Settings
	web         *web.Kit
	catalog     Catalog
	pictures    Pictures
	pages       Pages
	views       Views
	orders      Orders
	articles    Articles
	reviews     Reviews
	accounts    Accounts
	stats       Stats
	pricing     Pricing
	sales       Sales
	outbox      Outbox
	returns     Returns
	merchant    Merchant
	tree        Tree
	collections Collections
	demo        Demo
	staff       Staff
	audit       AuditLog
}

// New builds the admin area.
func New(cfg Settings, kit *web.Kit, d Deps) *Handler {
	return &Handler{cfg: cfg, web: kit, catalog: d.Catalog, pictures: d.Pictures, pages: d.Pages, views: d.Views,
		orders: d.Orders, articles: d.Articles, reviews: d.Reviews, accounts: d.Accounts, stats: d.Stats, pricing: d.Pricing,
		sales: d.Sales, outbox: d.Outbox, returns: d.Returns, merchant: d.Merchant, tree: d.Tree, collections: d.Collections, demo: d.Demo, staff: d.Staff, audit: d.Audit}
}
