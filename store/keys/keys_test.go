package keys_test

import (
	"path"
	"strings"
	"testing"

	"storefront/store/keys"
)

// hashTag is the part of a key Redis Cluster hashes: the first {...}
// with something inside, else the whole key.
func hashTag(k string) string {
	if i := strings.Index(k, "{"); i >= 0 {
		if j := strings.Index(k[i+1:], "}"); j > 0 {
			return k[i+1 : i+1+j]
		}
	}
	return k
}

func TestKeysThatGoTogetherShareASlot(t *testing.T) {
	sk := keys.OfSession("some-token")
	if hashTag(sk.Viewed) != hashTag(sk.Cart) || hashTag(sk.Viewed) != sk.ID {
		t.Errorf("a session's keys %q and %q do not share the session id's slot", sk.Viewed, sk.Cart)
	}
	for _, pair := range [][2]string{
		{keys.ItemLikes(7), keys.ItemCounts(7)},
		{keys.AlsoBought(7), keys.ItemCounts(7)},
		{keys.AlsoBoughtVariant(7, 31), keys.ItemCounts(7)},
		{keys.Following(3), keys.UserCounts(3)},
		{keys.Followers(3), keys.FollowVersions(3)},
		{keys.AccountCart(3), keys.CheckoutLock(3, "")},
		{keys.Article(1), keys.ArticleScores},
		{keys.Article(1), keys.HiddenArticles},
		{keys.Comments(1), keys.HiddenComments},
		{keys.Reports(1), keys.OpenReports},
		{keys.Reports(1), keys.Article(1)},
		{keys.GroupListing("care", true), keys.Group("care")},
	} {
		if hashTag(pair[0]) != hashTag(pair[1]) {
			t.Errorf("%q and %q are in different slots", pair[0], pair[1])
		}
	}
	if hashTag(keys.PageLock("abc")) != keys.Page("abc") {
		t.Errorf("the render lock %q is not in its page's slot", keys.PageLock("abc"))
	}
}

func TestPagesAndCartsPattern(t *testing.T) {
	for _, k := range []string{keys.Page("ab12"), keys.GuestCart("tok"), keys.AccountCart(42)} {
		if ok, _ := path.Match(keys.PagesAndCarts, k); !ok {
			t.Errorf("the scan pattern misses %q", k)
		}
		if keys.IsPage(k) == keys.IsCart(k) {
			t.Errorf("%q is counted as page %v and cart %v", k, keys.IsPage(k), keys.IsCart(k))
		}
	}
	for _, k := range []string{keys.PageStats, keys.PageLock("ab12"), "cartography"} {
		if keys.IsPage(k) || keys.IsCart(k) {
			t.Errorf("%q counted as a page or a cart", k)
		}
	}
}
