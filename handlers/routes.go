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
	// What search engines read: the same for everyone, no session.
	operations.GET("/robots.txt", h.shop.Robots)
	operations.GET("/sitemap.xml", h.shop.SitemapIndex)
	operations.GET("/sitemaps/:file", h.shop.SitemapFile)
	operations.GET("/articles/feed.atom", h.board.AtomFeed)
	// Stripe's events: a JSON body, checked by its signature, no session.
	e.POST("/webhooks/stripe", h.shop.StripeWebhook, web.BodyLimit, web.NoSession)

	// Pages for everyone, with the visitor's session.
	pages := routeGroup{e, []echo.MiddlewareFunc{web.BodyLimit, web.FormBody, web.ValidText, h.web.LoadSession}}
	pages.GET("/", h.shop.Home)
	pages.GET("/items", h.shop.ListItems)
	pages.GET("/c/*", h.shop.ShowCategory)
	pages.GET("/collections/:slug", h.shop.ShowCollection)
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
	// The second step of a sign-in with two-factor on: the visitor is
	// still signed out, known only by the pending cookie.
	pages.GET("/login/two-factor", h.account.SecondStepForm)
	pages.POST("/login/two-factor", h.account.SecondStep)
	pages.POST("/logout", h.account.Logout)
	// The emailed links: a forgotten password's reset, an address's
	// verification (it works signed out too: it came to the address).
	pages.GET("/password/forgot", h.account.ForgotForm)
	pages.POST("/password/forgot", h.account.Forgot)
	pages.GET("/password/reset", h.account.ResetForm)
	pages.POST("/password/reset", h.account.Reset)
	pages.GET("/account/email/verify", h.account.VerifyForm)
	pages.POST("/account/email/verify", h.account.VerifyEmail)
	// A staff invitation's link: its form makes the staff account.
	pages.GET("/staff/join", h.account.JoinStaffForm)
	pages.POST("/staff/join", h.account.JoinStaff)
	pages.GET("/users/:name", h.board.ShowUser)
	pages.GET("/articles", h.board.ListArticles)
	pages.GET("/articles/:id", h.board.ShowArticle)
	pages.GET("/groups/:name", h.board.ListGroup)
	pages.GET("/pages/:slug", h.shop.InfoPage)

	// Checkout: guests may buy too; a guest's order is reached through the
	// signed link the confirmation gives.
	pages.GET("/checkout", h.shop.ShowCheckout)
	pages.POST("/checkout", h.shop.PlaceOrder)
	pages.GET("/guest-orders/:id", h.shop.ShowGuestOrder)
	// An order's invoice: its shopper, a guest by the key of the order's
	// link, or staff; anyone else gets 404.
	pages.GET("/orders/:id/invoice.pdf", h.shop.Invoice)
	pages.POST("/guest-orders/:id/pay", h.shop.PayGuestOrder)
	pages.POST("/guest-orders/:id/returns", h.shop.AskGuestReturn)

	// Members only: a guest is sent to sign in with why, and comes back to
	// the page (for a form post, the page the form is on) afterwards.
	// Each route adds web.Kit.RequireSignIn with its own words and return page.
	members := pages
	members.GET("/orders", h.shop.ListOrders, h.web.RequireSignIn("Sign in to see your orders.", ""))
	members.GET("/orders/:id", h.shop.ShowOrder, h.web.RequireSignIn("Sign in to see your order.", ""))
	members.GET("/orders/:id/cancel", h.shop.ConfirmCancel, h.web.RequireSignIn("Sign in to cancel your order.", ""))
	members.POST("/orders/:id/cancel", h.shop.CancelOrder, h.web.RequireSignIn("Sign in to cancel your order.", "/orders/:id"))
	members.POST("/orders/:id/pay", h.shop.PayNow, h.web.RequireSignIn("Sign in to pay for your order.", "/orders/:id"))
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
	members.GET("/account/two-factor", h.account.TwoFactorForm, h.web.RequireSignIn("Sign in to set up two-factor sign-in.", ""))
	members.POST("/account/two-factor", h.account.SaveTwoFactor, h.web.RequireSignIn("Sign in to set up two-factor sign-in.", "/account/two-factor"))
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
	// Authors change or delete what they posted (for 15 minutes); readers
	// report an article or a comment (its "<article>-<number>") to the
	// moderators.
	members.GET("/articles/:id/edit", h.board.EditArticleForm, h.web.RequireSignIn("Sign in to edit your article.", ""))
	members.POST("/articles/:id/edit", h.board.EditArticle, h.web.RequireSignIn("Sign in to edit your article.", "/articles/:id/edit"))
	members.POST("/articles/:id/delete", h.board.DeleteArticle, h.web.RequireSignIn("Sign in to delete your article.", "/articles/:id/edit"))
	members.GET("/comments/:ref/edit", h.board.EditCommentForm, h.web.RequireSignIn("Sign in to edit your comment.", ""))
	members.POST("/comments/:ref/edit", h.board.EditComment, h.web.RequireSignIn("Sign in to edit your comment.", "/comments/:ref/edit"))
	members.POST("/comments/:ref/delete", h.board.DeleteComment, h.web.RequireSignIn("Sign in to delete your comment.", "/comments/:ref/edit"))
	members.GET("/articles/:id/report", h.board.ReportArticleForm, h.web.RequireSignIn("Sign in to report an article.", ""))
	members.POST("/articles/:id/report", h.board.ReportArticle, h.web.RequireSignIn("Sign in to report an article.", "/articles/:id/report"))
	members.GET("/comments/:ref/report", h.board.ReportCommentForm, h.web.RequireSignIn("Sign in to report a comment.", ""))
	members.POST("/comments/:ref/report", h.board.ReportComment, h.web.RequireSignIn("Sign in to report a comment.", "/comments/:ref/report"))

	// The staff's pages, each route in the group of what it does: a role
	// may use a route only if it was granted the route's group
	// (web.May), a guest is sent to sign in, any other account gets 403,
	// and a route registered under /admin without a group refuses everyone.
	admins := e.Group("/admin", web.BodyLimit, web.FormBody, web.ValidText, h.web.CheckSession, h.web.RequireStaff(h.rules))
	staff := staffGroup{g: admins, rules: h.rules}

	anyStaff := staff.as(web.PermStaff) // the first page; it shows each role what it may do
	anyStaff.GET("", h.admin.Dashboard)

	settings := staff.as(web.PermSettings) // the shop itself, and the engineering controls
	settings.GET("/system", h.admin.System)
	settings.GET("/settings", h.admin.ShopSettings)
	settings.POST("/settings", h.admin.SaveShopSettings)
	settings.POST("/settings/logo/delete", h.admin.RemoveLogo)
	settings.GET("/home", h.admin.HomePage)
	settings.POST("/home", h.admin.SaveHomePage)
	settings.GET("/pages", h.admin.InfoPages)
	settings.POST("/pages", h.admin.CreateInfoPage)
	settings.GET("/pages/:slug", h.admin.EditInfoPage)
	settings.POST("/pages/:slug", h.admin.SaveInfoPage)
	settings.POST("/pages/:slug/delete", h.admin.DeleteInfoPage)
	settings.GET("/demo", h.admin.DemoForm)
	settings.POST("/demo/remove", h.admin.RemoveDemo)
	settings.GET("/outbox", h.admin.OutboxList)
	settings.GET("/outbox/:id", h.admin.OutboxMessage)
	settings.POST("/outbox/:id/resend", h.admin.OutboxResend)
	settings.POST("/cache/purge", h.admin.PurgePages)
	settings.POST("/rowcache", h.admin.RowCache)
	settings.POST("/rescale", h.admin.Rescale)

	team := staff.as(web.PermTeam) // the staff, their roles, and the audit log
	team.GET("/staff", h.admin.Staff)
	team.POST("/staff", h.admin.InviteStaff)
	team.POST("/staff/:id/role", h.admin.SetStaffRole)
	team.POST("/staff/:id/remove", h.admin.RemoveStaff)
	team.GET("/audit", h.admin.Audit)

	catalog := staff.as(web.PermCatalog) // items, variants, pictures, the CSV export and import
	catalog.GET("/items", h.admin.Items)
	catalog.GET("/items/new", h.admin.NewItemForm)
	catalog.POST("/items/new", h.admin.CreateItem)
	catalog.GET("/items/:id", h.admin.EditItemForm)
	catalog.POST("/items/:id", h.admin.UpdateItem)
	catalog.GET("/items/:id/variants", h.admin.VariantsForm)
	catalog.POST("/items/:id/variants", h.admin.SaveVariants)
	catalog.POST("/items/:id/archive", h.admin.ArchiveItem)
	catalog.POST("/items/:id/restore", h.admin.RestoreItem)
	catalog.GET("/items.csv", h.admin.ItemsCSV)
	catalog.GET("/items/import", h.admin.ImportForm)
	catalog.GET("/imports/:id", h.admin.ImportJob)
	catalog.GET("/categories", h.admin.Categories)
	catalog.POST("/categories", h.admin.CreateCategory)
	catalog.POST("/categories/:id", h.admin.EditCategory)
	catalog.GET("/collections", h.admin.Collections)
	catalog.POST("/collections", h.admin.SaveCollection)
	catalog.GET("/collections/:id", h.admin.EditCollectionForm)
	catalog.POST("/collections/:id", h.admin.SaveCollection)
	catalog.POST("/items/:id/images/:n/delete", h.admin.DeleteImage)
	// The picture upload streams its multipart body and keeps at most
	// MAX_IMAGE_BYTES of the picture: it has no form limit or form check.
	// The catalog import streams its multipart body likewise and keeps at
	// most 5 MB of the file.
	catalog.stream(e, "/items/:id/images", h.admin.UploadImage, h.web.CheckSession, h.web.RequireStaff(h.rules))
	catalog.stream(e, "/items/import", h.admin.ImportItems, h.web.CheckSession, h.web.RequireStaff(h.rules))
	settings.stream(e, "/settings/logo", h.admin.UploadLogo, h.web.CheckSession, h.web.RequireStaff(h.rules))

	pricing := staff.as(web.PermPricing) // discount codes, delivery zones, tax rates
	pricing.GET("/discounts", h.admin.Discounts)
	pricing.POST("/discounts", h.admin.SaveDiscount)
	pricing.POST("/discounts/:code/retire", h.admin.RetireDiscount)
	pricing.POST("/discounts/:code/restore", h.admin.RestoreDiscount)
	pricing.GET("/shipping", h.admin.Shipping)
	pricing.POST("/shipping", h.admin.SaveShipping)
	pricing.POST("/shipping/:id/retire", h.admin.RetireZone)
	pricing.POST("/shipping/:id/restore", h.admin.RestoreZone)
	pricing.GET("/tax", h.admin.Tax)
	pricing.POST("/tax", h.admin.SaveTax)

	ordersRead := staff.as(web.PermOrders) // an order's list and page
	ordersRead.GET("/orders", h.admin.Orders)
	ordersRead.GET("/orders/:id", h.admin.Order)
	ordersRead.GET("/orders/:id/packing-slip.pdf", h.admin.PackingSlip)
	fulfil := staff.as(web.PermFulfil) // process, ship, deliver (cancelling a paid order also needs refunds)
	fulfil.POST("/orders/:id/status", h.admin.MoveOrder)
	notes := staff.as(web.PermNotes)
	notes.POST("/orders/:id/notes", h.admin.AddOrderNote)

	returnsGroup := staff.as(web.PermReturns) // returns; support's refunds up to SUPPORT_REFUND_LIMIT
	returnsGroup.GET("/returns", h.admin.Returns)
	returnsGroup.POST("/returns/:id", h.admin.ReturnAct)
	refunds := staff.as(web.PermRefunds) // refunds owed and settled by hand
	refunds.POST("/returns/:id/settle", h.admin.ReturnSettle)
	// An edit before shipping changes what the order costs: the money's roles.
	refunds.POST("/orders/:id/edit", h.admin.EditOrder)
	refunds.GET("/refunds", h.admin.Refunds)
	refunds.POST("/refunds/:id/retry", h.admin.RefundRetry)
	refunds.POST("/refunds/:id/settle", h.admin.RefundSettle)

	reports := staff.as(web.PermReports) // the sales page and the orders' exports
	reports.GET("/orders.csv", h.admin.OrdersCSV)
	reports.GET("/order-lines.csv", h.admin.OrderLinesCSV)
	reports.GET("/sales", h.admin.Sales)

	moderation := staff.as(web.PermModeration) // the board, reviews and bans
	moderation.GET("/moderation", h.admin.Moderation)
	moderation.POST("/articles/:id/hide", h.admin.HideArticle)
	moderation.POST("/articles/:id/unhide", h.admin.UnhideArticle)
	moderation.POST("/comments/:id/hide", h.admin.HideComment)
	moderation.POST("/comments/:id/unhide", h.admin.UnhideComment)
	moderation.POST("/reports/:ref/dismiss", h.admin.DismissReports)
	moderation.POST("/reviews/:id/hide", h.admin.HideReview)
	moderation.POST("/reviews/:id/unhide", h.admin.UnhideReview)
	moderation.POST("/users/:name/ban", h.admin.BanUser)
	moderation.POST("/users/:name/unban", h.admin.UnbanUser)
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

// staffGroup registers admin routes of one group (perm) on the /admin
// group and writes each into the staff rules that RequireStaff reads.
type staffGroup struct {
	g     *echo.Group
	rules *web.StaffRules
	perm  web.Perm
}

// as is the same group of routes for perm.
func (s staffGroup) as(p web.Perm) staffGroup { s.perm = p; return s }

// GET registers a readable admin route (GET and HEAD) under /admin.
func (s staffGroup) GET(path string, h echo.HandlerFunc) {
	s.g.Match(readMethods, path, h)
	for _, m := range readMethods {
		s.rules.Add(m, "/admin"+path, s.perm)
	}
}

// POST registers an admin form post under /admin.
func (s staffGroup) POST(path string, h echo.HandlerFunc) {
	s.g.POST(path, h)
	s.rules.Add(http.MethodPost, "/admin"+path, s.perm)
}

// stream registers an admin POST that reads its own multipart body, on e
// itself (no form limit or form check) with mw, which must guard it.
func (s staffGroup) stream(e *echo.Echo, path string, h echo.HandlerFunc, mw ...echo.MiddlewareFunc) {
	e.POST("/admin"+path, h, append([]echo.MiddlewareFunc{web.FormBody, web.ValidQuery}, mw...)...)
	s.rules.Add(http.MethodPost, "/admin"+path, s.perm)
}
