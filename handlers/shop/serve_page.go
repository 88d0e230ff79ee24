package shop

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/labstack/echo/v4"

	"storefront/handlers/web"
	"storefront/store/pagecache"
)

// bodyPool recycles response buffers: the body is written before the
// handler returns.
var bodyPool = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// Header values every page response shares (never written to in place),
// under canonical names, so that setting them allocates nothing.
var (
	privateNoCache     = []string{"private, no-cache"}
	varyEncodingCookie = []string{"Accept-Encoding, Cookie"}
	encodingGzip       = []string{"gzip"}
	xCache             = map[string][]string{}
)

func init() {
	for _, r := range []string{pagecache.PageHit, pagecache.PageMiss, pagecache.PageStale, pagecache.PageBypass} {
		xCache[r] = []string{strings.ToUpper(r)}
	}
}

// servePage answers with a page and this visitor's fragments: gzip as
// stored for clients that accept it (nearly all), plain otherwise; a strong
// ETag over the page and the fragments, and 304 when it matches. The
// response is private: it carries the visitor's own header.
func (h *Handler) servePage(c echo.Context, pv *pageVisit) error {
	page, result := pv.view.Page, pv.view.Result
	fills, err := h.renderFragments(c.Request().Context(), page, pv)
	if err != nil {
		return err
	}
	req, hdr := c.Request(), c.Response().Header()
	gz := web.AcceptsGzip(req.Header.Get(echo.HeaderAcceptEncoding))
	tag := page.ETagFills(fills)
	if gz {
		tag += "-gz" // another representation: another strong tag
	}
	etag := `"` + tag + `"`
	hdr["Etag"] = []string{etag}
	hdr["Cache-Control"] = privateNoCache
	hdr["Vary"] = append(hdr["Vary"], varyEncodingCookie...)
	hdr["X-Cache"] = xCache[result]
	hdr["Cache-Status"] = []string{cacheStatus(result, pv.view)}
	if web.ETagMatches(req.Header.Get("If-None-Match"), etag) {
		return c.NoContent(http.StatusNotModified)
	}
	if !gz {
		html, err := page.HTMLFills(fills)
		if err != nil {
			return err
		}
		return c.HTMLBlob(http.StatusOK, html)
	}
	bp := bodyPool.Get().(*[]byte)
	defer bodyPool.Put(bp)
	*bp = page.GzipFills((*bp)[:0], fills)
	hdr[echo.HeaderContentEncoding] = encodingGzip
	hdr[echo.HeaderContentLength] = []string{strconv.Itoa(len(*bp))}
	return c.Blob(http.StatusOK, echo.MIMETextHTMLCharsetUTF8, *bp)
}

// cacheStatus is the RFC 9211 Cache-Status header.
func cacheStatus(result string, v *pagecache.ItemView) string {
	const name = "storefront"
	switch result {
	case pagecache.PageHit, pagecache.PageStale:
		return name + "; hit; ttl=" + strconv.FormatInt(int64(v.FreshFor.Seconds()), 10)
	case pagecache.PageMiss:
		return name + "; fwd=uri-miss"
	}
	return name + "; fwd=bypass"
}
