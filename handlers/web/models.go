package web

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"storefront/store/board"
	"storefront/store/media"
	"storefront/views"
)

// The view models more than one area builds from the same data: an item's
// pictures (shop pages and the admin's item form), the board's article
// rows (the board and the shop's home page), and times as people read them.

// mediaURL is the address of one stored size of a picture.
func mediaURL(hash string, s media.ImageSize) string {
	return "/media/" + hash + "-" + strconv.Itoa(s.Width) + "." + s.Ext
}

// Picture turns a stored picture into an <img>'s attributes.
func Picture(img media.ItemImage) views.Picture {
	if len(img.Sizes) == 0 {
		return views.Picture{}
	}
	srcset := make([]string, len(img.Sizes))
	for i, s := range img.Sizes {
		srcset[i] = mediaURL(img.Hash, s) + " " + strconv.Itoa(s.Width) + "w"
	}
	largest := img.Sizes[len(img.Sizes)-1]
	return views.Picture{Src: mediaURL(img.Hash, img.Sizes[0]), Srcset: strings.Join(srcset, ", "),
		Width: largest.Width, Height: largest.Height, Position: img.Position, Largest: mediaURL(img.Hash, largest)}
}

// Pictures turns an item's stored pictures into <img> attributes, in order.
func Pictures(imgs []media.ItemImage) []views.Picture {
	out := make([]views.Picture, len(imgs))
	for i, img := range imgs {
		out[i] = Picture(img)
	}
	return out
}

// ArticleRows are the board's rows of articles, their ages as of now.
func ArticleRows(arts []board.Article, now time.Time) []views.ArticleRow {
	out := make([]views.ArticleRow, len(arts))
	for i, a := range arts {
		out[i] = ArticleRow(a, now)
	}
	return out
}

// ArticleRow is one article as the board lists it.
func ArticleRow(a board.Article, now time.Time) views.ArticleRow {
	return views.ArticleRow{
		ID: a.ID, Title: a.Title, Link: a.Link, Body: a.Body, Edited: !a.Edited.IsZero(), Domain: domainOf(a.Link), Poster: a.Poster,
		Age: AgeText(now.Sub(a.Posted)), PostedAt: a.Posted.UTC().Format(time.RFC3339),
		Score: a.Score, Up: a.Up, Down: a.Down, MyVote: a.MyVote, Open: a.Open,
		Comments: a.Comments, Groups: a.Groups,
	}
}

// domainOf is the host a link points to, without "www.".
func domainOf(link string) string {
	u, err := url.Parse(link)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}

// AgeText says how long ago something happened, for people.
func AgeText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return views.Counted(int64(d/time.Minute), "minute", "minutes") + " ago"
	case d < 48*time.Hour:
		return views.Counted(int64(d/time.Hour), "hour", "hours") + " ago"
	}
	return views.Counted(int64(d/(24*time.Hour)), "day", "days") + " ago"
}

// When formats a time for order pages; the zero time is "".
func When(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2 Jan 2006, 15:04 UTC")
}

// SharePicture is a picture's widest stored size as an absolute URL on
// shopURL, with its size: what link previews show (1280 px wide for an
// upload at least that wide).
func SharePicture(shopURL string, img media.ItemImage) (string, int, int) {
	if len(img.Sizes) == 0 {
		return "", 0, 0
	}
	s := img.Sizes[len(img.Sizes)-1]
	return shopURL + mediaURL(img.Hash, s), s.Width, s.Height
}
