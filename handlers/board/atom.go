package board

import (
	"html"
	"net/http"
	"time"

	"github.com/gorilla/feeds"
	"github.com/labstack/echo/v4"

	"storefront/store/board"
	"storefront/views"
)

// feedEntries is how many of the newest articles the Atom feed carries.
const feedEntries = 50

// AtomFeed is the board's Atom feed, /articles/feed.atom: the newest
// articles, each with its readable URL, its poster and its text (or its
// link). The same for everyone; the board's pages link to it.
func (h *Handler) AtomFeed(c echo.Context) error {
	p, err := h.articles.Articles(c.Request().Context(), board.ArticleQuery{Sort: board.SortNew, Page: 1, PerPage: feedEntries})
	if err != nil {
		return err
	}
	board, name := h.web.Absolute("/articles"), h.web.Shop().Name
	f := &feeds.Feed{
		Title:       name + " articles",
		Link:        &feeds.Link{Href: board},
		Description: "The newest articles readers posted on the " + name + " board.",
		Id:          board,
		Updated:     time.Unix(0, 0).UTC(),
	}
	for _, a := range p.Articles {
		if a.Hidden {
			continue
		}
		page := h.web.Absolute(views.ArticleURL(a.ID, a.Title))
		updated := a.Posted
		if a.Edited.After(updated) {
			updated = a.Edited
		}
		if updated.After(f.Updated) {
			f.Updated = updated
		}
		text := a.Body
		if text == "" {
			text = a.Title + ": " + a.Link
		}
		f.Items = append(f.Items, &feeds.Item{
			Id: page, Title: a.Title, Link: &feeds.Link{Href: page},
			Author:  &feeds.Author{Name: a.Poster},
			Created: a.Posted, Updated: updated,
			// Atom readers take both as HTML: the plain text is escaped.
			Description: html.EscapeString(views.MetaDescription(text)), Content: html.EscapeString(text),
		})
	}
	atom, err := f.ToAtom()
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=300")
	return c.Blob(http.StatusOK, "application/atom+xml; charset=utf-8", []byte(atom))
}
