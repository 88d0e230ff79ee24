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
// outermost first: request id, the request deadline and the client's
// address (which wrap all the rest), compression of the response, request
// log (which also turns errors into pages, so error pages are compressed
// too), panic recovery, security headers and the cross-origin check.
// Every route then limits its body (web.BodyLimit), takes form bodies only
// (web.FormBody: 415 for JSON or any other body) and checks that every
// query parameter and form field is UTF-8 (web.ValidText), except the
// picture upload, which streams and limits its own multipart body. Each
// route names the area that answers it: h.ops, h.shop, h.board, h.account
// or h.admin.
func (h *Handler) routes(e *echo.Echo) {
	e.HTTPErrorHandler = h.web.ErrorHandler
	e.IPExtractor = h.web.IPExtractor()
	e.Use(h.web.RequestID)
	e.Use(h.web.Deadline)
	e.Use(web.CompressPages())
	e.Use(h.web.RequestLog)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, LogLevel: 0}))
	e.Use(h.web.SecureHeaders())
	e.Use(h.web.CrossOrigin)

	// Operations: no session at all, the same answer for everyone.
	operations := routeGroup{e, []echo.MiddlewareFunc{web.BodyLimit, web.ValidText, web.NoSession}}
	operations.GET("/healthz", h.ops.Healthz)
	operations.GET("/readyz", h.ops.Readyz)
	operations.GET("/metrics", h.ops.Metrics) // the token, or the admin's session read by Metrics itself
	operations.GET("/static/*", h.ops.Static)
	operations.GET("/media/:file", h.shop.Media)
	operations.GET("/favicon.ico", h.ops.Favicon)
	operations.GET("/api/items/:id", h.shop.APIItem)
	// Stripe's events: a JSON body, checked by its signature, no session.
	e.POST("/webhooks/stripe", h.shop.StripeWebhook, web.BodyLimit, web.NoSession)

	// Pages for everyone, with the visitor's session.
	pages := routeGroup{e, []echo.MiddlewareFunc{web.BodyLimit, web.FormBody, web.ValidText, h.web.LoadSession}}
	pages.GET("/", h.shop.Home)
	pages.GET("/items", h.shop.ListItems)
	// The item page reads the session state itself, in the same round
	// trip as its own Redis work: only the cookies are read before it.
	e.Match(readMethods, "/items/:id", h.shop.ShowItem, web.BodyLimit, web.ValidText, h.web.CookieSession)
	pages.GET("/cart", h.shop.ShowCart)
	pages.POST("/cart", h.shop.SetCart)
	pages.POST("/cart/discount", h.shop.ApplyDiscount)
	pages.POST("/cart/discount/remove", h.shop.RemoveDiscount)
	pages.GET("/register", h.account.RegisterForm)
	pages.POST("/register", h.account.Register)
	pages.GET("/login", h.account.LoginForm)
	pages.POST("/login", h.account.Login)
	pages.POST("/logout", h.account.Logout)
	// The emailed links: a forgotten password's reset, an address's
	// verification (it works signed out too: it came to the address).
	pages.GET("/password/forgot", h.account.ForgotForm)
	pages.POST("/password/forgot", h.account.Forgot)
	pages.GET("/password/reset", h.account.ResetForm)
	pages.POST("/password/reset", h.account.Reset)
	pages.GET("/account/email/verify", h.account.VerifyForm)
	pages.POST("/account/email/verify", h.account.VerifyEmail)
	pages.GET("/users/:name", h.board.ShowUser)
	pages.GET("/articles", h.board.ListArticles)
	pages.GET("/articles/:id", h.board.ShowArticle)
	pages.GET("/groups/:name", h.board.ListGroup)

	// Checkout: guests may buy too; a guest's order is reached through the
	// signed link the confirmation gives.
	pages.GET("/checkout", h.shop.ShowCheckout)
	pages.POST("/checkout", h.shop.PlaceOrder)
	pages.GET("/guest-orders/:id", h.shop.ShowGuestOrder)

	// Members only: a guest is sent to sign in with why, and comes back to
	// the page (for a form post, the page the form is on) afterwards.
	// Each route adds web.Kit.RequireSignIn with its own words and return page.
	members := pages
	members.GET("/orders", h.shop.ListOrders, h.web.RequireSignIn("Sign in to see your orders.", ""))
	members.GET("/orders/:id", h.shop.ShowOrder, h.web.RequireSignIn("Sign in to see your order.", ""))
	members.GET("/orders/:id/cancel", h.shop.ConfirmCancel, h.web.RequireSignIn("Sign in to cancel your order.", ""))
	members.POST("/orders/:id/cancel", h.shop.CancelOrder, h.web.RequireSignIn("Sign in to cancel your order.", "/orders/:id"))
	members.POST("/orders/:id/returns", h.shop.AskReturn, h.web.RequireSignIn("Sign in to return items.", "/orders/:id"))
	members.GET("/account", h.account.ShowAccount, h.web.RequireSignIn("Sign in to see your account.", ""))
	members.POST("/account/addresses", h.account.AddAddress, h.web.RequireSignIn("Sign in to save addresses.", "/account"))
	members.GET("/account/addresses/:id", h.account.EditAddressForm, h.web.RequireSignIn("Sign in to edit your addresses.", ""))
	members.POST("/account/addresses/:id", h.account.UpdateAddress, h.web.RequireSignIn("Sign in to edit your addresses.", "/account"))
	members.POST("/account/addresses/:id/default", h.account.DefaultAddress, h.web.RequireSignIn("Sign in to edit your addresses.", "/account"))
	members.POST("/account/addresses/:id/delete", h.account.DeleteAddress, h.web.RequireSignIn("Sign in to edit your addresses.", "/account"))
	members.POST("/account/sessions/end-others", h.account.EndOtherSessions, h.web.RequireSignIn("Sign in to manage your sessions.", "/account"))
	members.POST("/account/sessions/:id/end", h.account.EndSession, h.web.RequireSignIn("Sign in to manage your sessions.", "/account"))
	members.GET("/account/password", h.account.PasswordForm, h.web.RequireSignIn("Sign in to change your password.", ""))
	members.POST("/account/password", h.account.ChangePassword, h.web.RequireSignIn("Sign in to change your password.", "/account/password"))
	members.GET("/account/email", h.account.EmailForm, h.web.RequireSignIn("Sign in to set your email address.", ""))
	members.POST("/account/email", h.account.SetEmail, h.web.RequireSignIn("Sign in to set your email address.", "/account/email"))
	members.POST("/items/:id/like", h.shop.LikeItem, h.web.RequireSignIn("Sign in to like items.", "/items/:id"))
	members.POST("/items/:id/reviews", h.shop.PostReview, h.web.RequireSignIn("Sign in to review items.", "/items/:id#reviews"))
	members.POST("/users/:name/follow", h.board.FollowUser, h.web.RequireSignIn("Sign in to follow people.", "/users/:name"))
	members.GET("/feed", h.board.ShowFeed, h.web.RequireSignIn("Sign in to see your feed.", ""))
	members.GET("/notifications", h.account.ShowNotifications, h.web.RequireSignIn("Sign in to see your notifications.", ""))
	members.POST("/notifications/read", h.account.MarkNotificationsRead, h.web.RequireSignIn("Sign in to see your notifications.", "/notifications"))
	members.GET("/articles/new", h.board.NewArticleForm, h.web.RequireSignIn("Sign in to post an article.", ""))
	members.POST("/articles", h.board.PostArticle, h.web.RequireSignIn("Sign in to post an article.", "/articles/new"))
	members.POST("/articles/:id/vote", h.board.VoteArticle, h.web.RequireSignIn("Sign in to vote.", "/articles/:id"))
	members.POST("/articles/:id/comments", h.board.CommentArticle, h.web.RequireSignIn("Sign in to comment.", "/articles/:id#comments"))
	members.POST("/articles/:id/groups", h.board.EditArticleGroups, h.web.RequireSignIn("Sign in to change an article's groups.", "/articles/:id"))

	// Admin only: the dashboard, cache controls, the catalog, orders and
	// moderation. A guest is sent to sign in; any other account gets 403.
	admins := e.Group("/admin", web.BodyLimit, web.FormBody, web.ValidText, h.web.CheckSession, h.web.RequireAdmin)
	admins.Match(readMethods, "", h.admin.Dashboard)
	admins.Match(readMethods, "/items", h.admin.Items)
	admins.Match(readMethods, "/items/new", h.admin.NewItemForm)
	admins.POST("/items/new", h.admin.CreateItem)
	admins.Match(readMethods, "/items/:id", h.admin.EditItemForm)
	admins.POST("/items/:id", h.admin.UpdateItem)
	admins.Match(readMethods, "/items/:id/variants", h.admin.VariantsForm)
	admins.POST("/items/:id/variants", h.admin.SaveVariants)
	admins.POST("/items/:id/archive", h.admin.ArchiveItem)
	admins.POST("/items/:id/restore", h.admin.RestoreItem)
	admins.Match(readMethods, "/orders", h.admin.Orders)
	admins.POST("/orders/:id/status", h.admin.MoveOrder)
	admins.Match(readMethods, "/discounts", h.admin.Discounts)
	admins.POST("/discounts", h.admin.SaveDiscount)
	admins.Match(readMethods, "/shipping", h.admin.Shipping)
	admins.POST("/shipping", h.admin.SaveShipping)
	admins.Match(readMethods, "/tax", h.admin.Tax)
	admins.POST("/tax", h.admin.SaveTax)
	// The business view: an order's page and notes, the CSV exports, the
	// catalog import (its multipart body is below) and the sales page.
	admins.Match(readMethods, "/orders.csv", h.admin.OrdersCSV)
	admins.Match(readMethods, "/orders/:id", h.admin.Order)
	admins.POST("/orders/:id/notes", h.admin.AddOrderNote)
	admins.Match(readMethods, "/returns", h.admin.Returns)
	admins.POST("/returns/:id", h.admin.ReturnAct)
	admins.Match(readMethods, "/items.csv", h.admin.ItemsCSV)
	admins.Match(readMethods, "/items/import", h.admin.ImportForm)
	admins.Match(readMethods, "/sales", h.admin.Sales)
	admins.Match(readMethods, "/outbox", h.admin.OutboxList)
	admins.Match(readMethods, "/outbox/:id", h.admin.OutboxMessage)
	admins.Match(readMethods, "/moderation", h.admin.Moderation)
	admins.POST("/articles/:id/hide", h.admin.HideArticle)
	admins.POST("/articles/:id/unhide", h.admin.UnhideArticle)
	admins.POST("/comments/:id/hide", h.admin.HideComment)
	admins.POST("/comments/:id/unhide", h.admin.UnhideComment)
	admins.POST("/reviews/:id/hide", h.admin.HideReview)
	admins.POST("/reviews/:id/unhide", h.admin.UnhideReview)
	admins.POST("/users/:name/ban", h.admin.BanUser)
	admins.POST("/users/:name/unban", h.admin.UnbanUser)
	admins.POST("/cache/purge", h.admin.PurgePages)
	admins.POST("/rowcache", h.admin.RowCache)
	admins.POST("/rescale", h.admin.Rescale)
	// The picture upload streams its multipart body and keeps at most
	// MAX_IMAGE_BYTES of the picture: it has no form limit or form check.
	e.POST("/admin/items/:id/images", h.admin.UploadImage, web.FormBody, web.ValidQuery, h.web.CheckSession, h.web.RequireAdmin)
	admins.POST("/items/:id/images/:n/delete", h.admin.DeleteImage)
	// The catalog import streams its multipart body likewise and keeps at
	// most 5 MB of the file.
	e.POST("/admin/items/import", h.admin.ImportItems, web.FormBody, web.ValidQuery, h.web.CheckSession, h.web.RequireAdmin)
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
