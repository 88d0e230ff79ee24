package board

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"time"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/board"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/sessions"
	"storefront/store/social"
	"storefront/views"
)

const (
	// profilePosts is how many articles a user's page lists.
	profilePosts = 25
	// commonShown is how many people-you-both-follow a user's page lists.
	commonShown = 50
)

// followAnswer is the JSON answer of POST /users/:name/follow.
type followAnswer struct {
	Following bool  `json:"following"`
	Followers int64 `json:"followers"`
	Changed   bool  `json:"changed"`
}

// userParam finds the user named in the path; a name that cannot exist
// is a 404 without a query.
func (h *Handler) userParam(c echo.Context) (sessions.User, error) {
	name := c.Param("name")
	if !web.ValidUsername(name) {
		return sessions.User{}, web.NotFound("There is nobody by that name here.")
	}
	u, err := h.users.UserByName(c.Request().Context(), name)
	if errors.Is(err, platform.ErrNotFound) {
		return sessions.User{}, web.NotFound("There is nobody by that name here.")
	}
	return u, err
}

// ShowUser is a user's page: counters, follow button, the people you both
// follow (for a signed-in visitor) and their articles.
func (h *Handler) ShowUser(c echo.Context) error {
	u, err := h.userParam(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	s := web.SessionOf(c)
	p, err := h.social.Profile(ctx, u.ID, s.UserID, profilePosts)
	if err != nil {
		return err
	}
	entries, err := h.social.Posts(ctx, p.PostIDs)
	if err != nil {
		return err
	}
	posts, err := h.withVotes(ctx, feedArticles(entries), s.UserID)
	if err != nil {
		return err
	}
	d := views.UserData{
		Name:      u.Username,
		Counts:    views.UserCountsView(p.Counts),
		Posts:     posts,
		SignedIn:  s.SignedIn(),
		Self:      s.UserID == u.ID,
		Following: p.ViewerFollows,
		Moderator: s.IsAdmin && s.UserID != u.ID && !u.IsAdmin,
		Banned:    u.Banned && s.IsAdmin,
	}
	if s.SignedIn() && !d.Self {
		if d.Common, err = h.commonFollows(ctx, s.UserID, u.ID); err != nil {
			return err
		}
	}
	return web.Render(c, http.StatusOK, views.UserPage(h.web.Chrome(c, u.Username), d))
}

// commonFollows names the people both a and b follow, sorted by name.
func (h *Handler) commonFollows(ctx context.Context, a, b int64) ([]string, error) {
	ids, err := h.social.CommonFollows(ctx, a, b, commonShown)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	users, err := h.users.UsersByID(ctx, ids)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(users))
	for _, u := range users {
		names = append(names, u.Username)
	}
	sort.Strings(names)
	return names, nil
}

// FollowUser follows or unfollows (dir=follow|unfollow) a user for the
// signed-in visitor. Following yourself is refused (422). A new follow
// notifies the followed user.
func (h *Handler) FollowUser(c echo.Context) error {
	s := web.SessionOf(c)
	u, err := h.userParam(c)
	if err != nil {
		return err
	}
	dir := c.FormValue("dir")
	if dir != "follow" && dir != "unfollow" {
		return web.BadRequest("Say follow or unfollow.")
	}
	if u.ID == s.UserID {
		return echo.NewHTTPError(http.StatusUnprocessableEntity, "You cannot follow yourself.")
	}
	if err := h.web.Limit(c, keys.RateFollow, web.Itoa(s.UserID), h.cfg.Follow, "You are following and unfollowing very quickly."); err != nil {
		return err
	}
	ctx := c.Request().Context()
	res, err := h.social.Follow(ctx, s.UserID, u.ID, dir == "follow")
	if err != nil {
		return err
	}
	if res.Changed && res.Following {
		// The follow is done; a lost notification must not undo it or
		// show an error page.
		if err := h.notifier.NotifyFollower(ctx, u.ID, s.UserName); err != nil {
			h.web.Log().Warn("notify follower", "user", u.ID, "err", err)
		}
	}
	if web.WantsJSON(c) {
		web.NoStore(c)
		return c.JSON(http.StatusOK, followAnswer{Following: res.Following, Followers: res.Followers, Changed: res.Changed})
	}
	if res.Following {
		h.web.SetFlash(c, "You now follow "+u.Username+".")
	} else {
		h.web.SetFlash(c, "You no longer follow "+u.Username+".")
	}
	return web.Redirect(c, web.LocalPath(c.FormValue("next"), views.UserURL(u.Username)))
}

// withVotes fills the board's live score, vote counts and the reader's own
// vote into feed rows (one pipelined read), since feeds store only what does
// not change.
func (h *Handler) withVotes(ctx context.Context, rows []views.FeedArticle, viewerID int64) ([]views.FeedArticle, error) {
	if len(rows) == 0 {
		return rows, nil
	}
	ids := make([]int64, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	arts, err := h.articles.ArticlesByID(ctx, ids, viewerID)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]board.Article, len(arts))
	for _, a := range arts {
		byID[a.ID] = a
	}
	for i, r := range rows {
		if a, ok := byID[r.ID]; ok {
			rows[i].Score, rows[i].Up, rows[i].Down = int64(a.Score), a.Up, a.Down
			if a.MyVote != board.VoteNone {
				rows[i].MyVote = a.MyVote
			}
		}
	}
	return rows, nil
}

// feedArticles turns feed entries into article rows.
func feedArticles(entries []social.FeedEntry) []views.FeedArticle {
	out := make([]views.FeedArticle, 0, len(entries))
	for _, e := range entries {
		out = append(out, views.FeedArticle{
			ID:       e.ArticleID,
			Title:    e.Title,
			Link:     e.Link,
			Author:   e.AuthorName,
			PostedAt: time.UnixMicro(int64(e.PostedAt * 1e6)),
			Age:      web.AgeText(time.Since(time.UnixMicro(int64(e.PostedAt * 1e6)))),
		})
	}
	return out
}
