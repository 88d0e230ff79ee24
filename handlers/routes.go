package handlers

import (
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// routes registers every route and the middleware chain. Outermost first:
// request id, the request deadline, request log (which also turns errors into pages), panic
// recovery, body limit, security headers, the cross-origin check and the
// session. The deadline wraps them all.
func (h *Handler) routes(e *echo.Echo) {
	e.HTTPErrorHandler = h.ErrorHandler
	e.IPExtractor = h.ipExtractor()
	e.Use(middleware.RequestID())
	e.Use(h.deadline)
	e.Use(h.requestLog)
	e.Use(middleware.RecoverWithConfig(middleware.RecoverConfig{DisableStackAll: true, LogLevel: 0}))
	e.Use(middleware.BodyLimit(bodyLimit))
	e.Use(h.secureHeaders())
	e.Use(h.crossOrigin)
	e.Use(h.sessionMiddleware)

	// Operations (no session work: see sessionMiddleware).
	e.GET("/healthz", h.Healthz)
	e.GET("/readyz", h.Readyz)
	e.GET("/metrics", h.Metrics)
	e.GET("/static/*", h.Static)

	// Shop.
	e.GET("/", h.Home)
	e.GET("/items", h.ListItems)
	e.GET("/items/:id", h.ShowItem)
	e.GET("/api/items/:id", h.APIItem)

	// Cart, checkout and orders.
	e.GET("/cart", h.ShowCart)
	e.POST("/cart", h.SetCart)
	e.POST("/checkout", h.Checkout)
	e.GET("/orders", h.ListOrders)
	e.GET("/orders/:id", h.ShowOrder)

	// Accounts.
	e.GET("/register", h.RegisterForm)
	e.POST("/register", h.Register)
	e.GET("/login", h.LoginForm)
	e.POST("/login", h.Login)
	e.POST("/logout", h.Logout)

	// Engagement: likes, people, feed, notifications.
	e.POST("/items/:id/like", h.LikeItem)
	e.GET("/users/:name", h.ShowUser)
	e.POST("/users/:name/follow", h.FollowUser)
	e.GET("/feed", h.ShowFeed)
	e.GET("/notifications", h.ShowNotifications)
	// Articles.
	e.GET("/articles", h.ListArticles)
	e.GET("/articles/new", h.NewArticleForm)
	e.POST("/articles", h.PostArticle)
	e.GET("/articles/:id", h.ShowArticle)
	e.POST("/articles/:id/vote", h.VoteArticle)
	e.POST("/articles/:id/comments", h.CommentArticle)
	e.GET("/groups/:name", h.ListGroup)

	// Admin (the admin account only): the dashboard, cache controls and item editing.
	admin := e.Group("/admin", h.requireAdmin)
	admin.GET("", h.AdminDashboard)
	admin.GET("/items/:id", h.AdminItemForm)
	admin.POST("/items/:id", h.AdminUpdateItem)
	admin.POST("/cache/purge", h.AdminPurge)
	admin.POST("/rowcache", h.AdminRowCache)
	admin.POST("/rescale", h.AdminRescale)
}
