package store

import (
	"storefront/store/analytics"
	"storefront/store/board"
	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/media"
	"storefront/store/notify"
	"storefront/store/orders"
	"storefront/store/pagecache"
	"storefront/store/platform"
	"storefront/store/ratelimit"
	"storefront/store/reviews"
	"storefront/store/search"
	"storefront/store/seed"
	"storefront/store/sessions"
	"storefront/store/social"
	"storefront/store/stats"
	"storefront/store/workers"
)

// Transitional names: the domains are moving out of this package one by
// one; until the handlers import them, these keep the old names working.

var (
	ErrNotFound    = platform.ErrNotFound
	ErrUnavailable = platform.ErrUnavailable
	ErrConflict    = platform.ErrConflict
	ErrOutOfStock  = platform.ErrOutOfStock
	ErrInvalid     = platform.ErrInvalid
	ErrGone        = platform.ErrGone
	ErrBanned      = platform.ErrBanned
)

const (
	ModeSingle    = platform.ModeSingle
	ModeCluster   = platform.ModeCluster
	ModeEmbedded  = platform.ModeEmbedded
	ModeMiniredis = platform.ModeMiniredis
	DBSQLite      = platform.DBSQLite
	DBPostgres    = platform.DBPostgres
)

type (
	RedisConfig = platform.RedisConfig
	RedisConn   = platform.RedisConn
)

var (
	ConnectRedis  = platform.ConnectRedis
	IsUnavailable = platform.IsUnavailable
	OpenDB        = platform.OpenDB
	SQLiteDSN     = platform.SQLiteDSN
)

type SessionKeys = keys.SessionKeys

var KeysOfSession = keys.OfSession

const SignedInScore = keys.SignedInScore

type (
	Worker       = workers.Worker
	WorkerRun    = workers.Run
	WorkerStatus = workers.Status
)

type (
	Rate      = ratelimit.Rate
	Window    = ratelimit.Window
	Admission = ratelimit.Admission
)

var ParseRate = ratelimit.ParseRate

type (
	Item           = catalog.Item
	Category       = catalog.Category
	ItemPage       = catalog.ItemPage
	NewItem        = catalog.NewItem
	ItemEdit       = catalog.ItemEdit
	AdminItemQuery = catalog.AdminItemQuery
	CachedRow      = catalog.CachedRow
	ScheduledRow   = catalog.ScheduledRow
)

type (
	ImageSize      = media.ImageSize
	ItemImage      = media.ItemImage
	Rendition      = media.Rendition
	ProcessedImage = media.ProcessedImage
)

const (
	DefaultMaxImageBytes = media.DefaultMaxImageBytes
	MaxItemImages        = media.MaxItemImages
	MaxImagePixels       = media.MaxImagePixels
	MaxImageSide         = media.MaxImageSide
)

var (
	ImageWidths       = media.ImageWidths
	ProcessImage      = media.ProcessImage
	ErrItemImagesFull = media.ErrItemImagesFull
	ErrImageTooLarge  = media.ErrImageTooLarge
	ErrImageTooMany   = media.ErrImageTooMany
	ErrImageShape     = media.ErrImageShape
	ErrImageBusy      = media.ErrImageBusy
	ErrImageFormat    = media.ErrImageFormat
	ErrImageDamaged   = media.ErrImageDamaged
	ErrImagePolyglot  = media.ErrImagePolyglot
)

type (
	ItemViews  = analytics.ItemViews
	AlsoBought = analytics.AlsoBought
)

const DemoItemCount = seed.DemoItemCount

var DemoItems = seed.DemoItems

const (
	SortRelevance = search.SortRelevance
	SortPriceAsc  = search.SortPriceAsc
	SortPriceDesc = search.SortPriceDesc
	SortPopular   = search.SortPopular
	SortNewest    = search.SortNewest
)

var CatalogSorts = search.CatalogSorts

type (
	SearchQuery  = search.SearchQuery
	SearchResult = search.SearchResult
)

const DefaultSearchCacheBytes = search.DefaultCacheBytes

const (
	NoteVote     = notify.NoteVote
	NoteComment  = notify.NoteComment
	NoteFollower = notify.NoteFollower
	NoteOrder    = notify.NoteOrder
)

var NoteKinds = notify.NoteKinds

type Note = notify.Note

type (
	Cart      = cart.Cart
	CartLine  = cart.Line
	CartOwner = cart.Owner
)

const (
	MaxCartLines          = cart.MaxLines
	DefaultAccountCartTTL = cart.DefaultAccountTTL
)

var ErrCartFull = cart.ErrFull

type (
	SessionState         = sessions.SessionState
	User                 = sessions.User
	TooManySessionsError = sessions.TooManySessionsError
)

const AdminUsername = sessions.AdminUsername

var (
	ErrBadCredentials = sessions.ErrBadCredentials
	WithClientAddr    = sessions.WithClientAddr
)

type (
	Review = reviews.Review
	Rating = reviews.Rating
)

const ReviewsShown = reviews.ReviewsShown

type (
	Article       = board.Article
	NewArticle    = board.NewArticle
	ArticleQuery  = board.ArticleQuery
	ArticlePage   = board.ArticlePage
	Comment       = board.Comment
	ArticleEvents = board.Events
)

const (
	VoteUp        = board.VoteUp
	VoteDown      = board.VoteDown
	VoteNone      = board.VoteNone
	SortTop       = board.SortTop
	SortNew       = board.SortNew
	CommentsShown = board.CommentsShown
)

var (
	ArticleGroups   = board.ArticleGroups
	IsArticleGroup  = board.IsArticleGroup
	CommentRef      = board.CommentRef
	ParseCommentRef = board.ParseCommentRef
)

type (
	FeedEntry    = social.FeedEntry
	FollowResult = social.FollowResult
	LikeResult   = social.LikeResult
	ItemLikes    = social.ItemLikes
	ItemCounts   = social.ItemCounts
	UserCounts   = social.UserCounts
	Profile      = social.Profile
	LikeBox      = social.LikeBox
)

const (
	LikeToggle = social.LikeToggle
	LikeOn     = social.LikeOn
	LikeOff    = social.LikeOff
)

type (
	Order           = orders.Order
	OrderLine       = orders.OrderLine
	OrderEvent      = orders.OrderEvent
	AdminOrder      = orders.AdminOrder
	CheckoutRequest = orders.CheckoutRequest
	CheckoutError   = orders.CheckoutError
	LineProblem     = orders.LineProblem
	MoveError       = orders.MoveError
	PaymentMethod   = orders.PaymentMethod
	ShippingRates   = orders.ShippingRates
	Address         = orders.Address
	Country         = orders.Country
	Fulfilment      = orders.Fulfilment
	PollResult      = orders.PollResult
)

const (
	OrderPending     = orders.OrderPending
	OrderProcessed   = orders.OrderProcessed
	OrderPaid        = orders.OrderPaid
	OrderShipped     = orders.OrderShipped
	OrderDelivered   = orders.OrderDelivered
	OrderCancelled   = orders.OrderCancelled
	GuestUserID      = orders.GuestUserID
	ActorShopper     = orders.ActorShopper
	ActorFulfilment  = orders.ActorFulfilment
	ProblemGone      = orders.ProblemGone
	ProblemSoldOut   = orders.ProblemSoldOut
	ProblemShort     = orders.ProblemShort
	PayInvoice       = orders.PayInvoice
	PayCOD           = orders.PayCOD
	ShippingStandard = orders.ShippingStandard
	ShippingExpress  = orders.ShippingExpress

	DefaultOrderVisibility = orders.DefaultOrderVisibility
	DefaultOrderSweepAge   = orders.DefaultOrderSweepAge
	DefaultOrderPoll       = orders.DefaultOrderPoll
)

var (
	OrderPath       = orders.OrderPath
	IsOrderStatus   = orders.IsOrderStatus
	CanMoveOrder    = orders.CanMoveOrder
	AdminActor      = orders.AdminActor
	PaymentMethods  = orders.PaymentMethods
	PaymentByCode   = orders.PaymentByCode
	DefaultShipping = orders.DefaultShipping
	ValidShipping   = orders.ValidShipping
	ParseMoney      = orders.ParseMoney
	Countries       = orders.Countries
	CountryName     = orders.CountryName
	ErrEmptyCart    = orders.ErrEmptyCart
	ErrCheckoutBusy = orders.ErrCheckoutBusy
)

type (
	PageData        = pagecache.PageData
	NamedItem       = pagecache.NamedItem
	RenderFunc      = pagecache.RenderFunc
	ItemPageRequest = pagecache.ItemPageRequest
	ItemView        = pagecache.ItemView
	PageGen         = pagecache.PageGen
)

const (
	PageHit            = pagecache.PageHit
	PageMiss           = pagecache.PageMiss
	PageStale          = pagecache.PageStale
	PageBypass         = pagecache.PageBypass
	DefaultPageL1Bytes = pagecache.DefaultL1Bytes
	DefaultWriteBehind = pagecache.DefaultWriteBehind
)

var (
	ItemPath = pagecache.ItemPath
	PageKey  = pagecache.PageKey
)

type (
	Dashboard       = stats.Dashboard
	PageCacheReport = stats.PageCacheReport
	SessionReport   = stats.SessionReport
	WorkerReport    = stats.WorkerReport
	RedisInfo       = stats.RedisInfo
	StatsSample     = stats.StatsSample
	Keyspace        = stats.Keyspace
	ItemHits        = pagecache.ItemHits
	RowReport       = catalog.RowReport
)
