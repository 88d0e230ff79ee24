package handlers

import (
	"net/http"
	"slices"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"storefront/handlers/web"
)

// routes registers every route, grouped by who may call it; each group
// carries its own middleware. The chain every request passes first,
// outermost first: request id, the request deadline (which wraps all the
// rest), compression of the response, request log (which also turns
// errors into pages, so error pages are compressed too), panic recovery,
// security headers and the cross-origin check. Every route then limits
// its body and checks that every query parameter and form field is UTF-8
// (bodyChecks), except the picture upload, which streams and limits its
// own multipart body.
func (h *Handler) routes(e *echo.Echo) {
	e.HTTPErrorHandler = h.web.ErrorHandler
	e.IPExtractor = h.web.IPExtractor()
	e.Use(h.web.RequestID)
	e.Use(h.web.Deadline)
	e.Use(h.web.ClientAddr)
	e.Use(web.CompressPages())
	e.Use(h.web.RequestLog)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, LogLevel: 0}))
	e.Use(h.web.SecureHeaders())
	e.Use(h.web.CrossOrigin)

	// Operations: no session at all, the same answer for everyone.
	ops := routeGroup{e, []echo.MiddlewareFunc{web.BodyLimit, web.ValidText, web.NoSession}}
	ops.GET("/healthz", h.Healthz)
	ops.GET("/readyz", h.Readyz)
	ops.GET("/metrics", h.Metrics) // the token, or the admin's session read by Metrics itself
	ops.GET("/static/*", h.Static)
	ops.GET("/media/:file", h.Media)
	ops.GET("/favicon.ico", h.Favicon)
	ops.GET("/api/items/:id", h.APIItem)

	// Pages for everyone, with the visitor's session.
	pages := routeGroup{e, []echo.MiddlewareFunc{web.BodyLimit, web.ValidText, h.web.LoadSession}}
	pages.GET("/", h.Home)
	pages.GET("/items", h.ListItems)
	// The item page reads the session state itself, in the same round
	// trip as its own Redis work: only the cookies are read before it.
	e.Match(readMethods, "/items/:id", h.ShowItem, web.BodyLimit, web.ValidText, h.web.CookieSession)
	pages.GET("/cart", h.ShowCart)
	pages.POST("/cart", h.SetCart)
	pages.GET("/register", h.RegisterForm)
	pages.POST("/register", h.Register)
	pages.GET("/login", h.LoginForm)
	pages.POST("/login", h.Login)
	pages.POST("/logout", h.Logout)
	pages.GET("/users/:name", h.ShowUser)
	pages.GET("/articles", h.ListArticles)
	pages.GET("/articles/:id", h.ShowArticle)
	pages.GET("/groups/:name", h.ListGroup)

	// Checkout: guests may buy too; a guest's order is reached through the
	// signed link the confirmation gives.
	pages.GET("/checkout", h.ShowCheckout)
	pages.POST("/checkout", h.PlaceOrder)
	pages.GET("/guest-orders/:id", h.ShowGuestOrder)

	// Members only: a guest is sent to sign in with why, and comes back to
	// the page (for a form post, the page the form is on) afterwards.
	// Each route adds requireSignIn with its own words and return page.
	members := pages
	members.GET("/orders", h.ListOrders, h.web.RequireSignIn("Sign in to see your orders.", ""))
	members.GET("/orders/:id", h.ShowOrder, h.web.RequireSignIn("Sign in to see your order.", ""))
	members.POST("/orders/:id/cancel", h.CancelOrder, h.web.RequireSignIn("Sign in to cancel your order.", "/orders/:id"))
	members.GET("/account/password", h.PasswordForm, h.web.RequireSignIn("Sign in to change your password.", ""))
	members.POST("/account/password", h.ChangePassword, h.web.RequireSignIn("Sign in to change your password.", "/account/password"))
	members.POST("/items/:id/like", h.LikeItem, h.web.RequireSignIn("Sign in to like items.", "/items/:id"))
	members.POST("/items/:id/reviews", h.PostReview, h.web.RequireSignIn("Sign in to review items.", "/items/:id#reviews"))
	members.POST("/users/:name/follow", h.FollowUser, h.web.RequireSignIn("Sign in to follow people.", "/users/:name"))
	members.GET("/feed", h.ShowFeed, h.web.RequireSignIn("Sign in to see your feed.", ""))
	members.GET("/notifications", h.ShowNotifications, h.web.RequireSignIn("Sign in to see your notifications.", ""))
	members.POST("/notifications/read", h.MarkNotificationsRead, h.web.RequireSignIn("Sign in to see your notifications.", "/notifications"))
	members.GET("/articles/new", h.NewArticleForm, h.web.RequireSignIn("Sign in to post an article.", ""))
	members.POST("/articles", h.PostArticle, h.web.RequireSignIn("Sign in to post an article.", "/articles/new"))
	members.POST("/articles/:id/vote", h.VoteArticle, h.web.RequireSignIn("Sign in to vote.", "/articles/:id"))
	members.POST("/articles/:id/comments", h.CommentArticle, h.web.RequireSignIn("Sign in to comment.", "/articles/:id#comments"))
	members.POST("/articles/:id/groups", h.EditArticleGroups, h.web.RequireSignIn("Sign in to change an article's groups.", "/articles/:id"))

	// Admin only: the dashboard, cache controls, the catalog, orders and
	// moderation. A guest is sent to sign in; any other account gets 403.
	admin := e.Group("/admin", web.BodyLimit, web.ValidText, h.web.CheckSession, h.web.RequireAdmin)
	admin.Match(readMethods, "", h.AdminDashboard)
	admin.Match(readMethods, "/items", h.AdminItems)
	admin.Match(readMethods, "/items/new", h.AdminNewItemForm)
	admin.POST("/items/new", h.AdminCreateItem)
	admin.Match(readMethods, "/items/:id", h.AdminItemForm)
	admin.POST("/items/:id", h.AdminUpdateItem)
	admin.POST("/items/:id/archive", h.AdminArchiveItem)
	admin.POST("/items/:id/restore", h.AdminRestoreItem)
	admin.Match(readMethods, "/orders", h.AdminOrders)
	admin.POST("/orders/:id/status", h.AdminMoveOrder)
	admin.POST("/articles/:id/hide", h.AdminHideArticle)
	admin.POST("/comments/:id/hide", h.AdminHideComment)
	admin.POST("/users/:name/ban", h.AdminBanUser)
	admin.POST("/cache/purge", h.AdminPurge)
	admin.POST("/rowcache", h.AdminRowCache)
	admin.POST("/rescale", h.AdminRescale)
	// The picture upload streams its multipart body and keeps at most
	// MAX_IMAGE_BYTES of the picture: it has no form limit or form check.
	e.POST("/admin/items/:id/images", h.AdminUploadImage, web.ValidQuery, h.web.CheckSession, h.web.RequireAdmin)
	admin.POST("/items/:id/images/:n/delete", h.AdminDeleteImage)
}

// routeGroup registers routes that share middleware but no path prefix.
// (Echo's own Group would also catch every unknown path under its prefix,
// which for the prefix "" is all of them.)
type routeGroup struct {
	e  *echo.Echo
	mw []echo.MiddlewareFunc
}

// readMethods are the methods every readable route answers: HEAD runs the
// GET handler, and net/http drops the body while keeping the headers.
var readMethods = []string{http.MethodGet, http.MethodHead}

// GET registers a GET (and HEAD) route with the group's middleware, then mw.
func (g routeGroup) GET(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	g.e.Match(readMethods, path, h, append(slices.Clone(g.mw), mw...)...)
}

// POST registers a POST route with the group's middleware, then mw.
func (g routeGroup) POST(path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	g.e.POST(path, h, append(slices.Clone(g.mw), mw...)...)
}
