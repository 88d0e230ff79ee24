package seed

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"time"

	"storefront/store/board"
	"storefront/store/sessions"
	"storefront/store/social"
)

// DemoArticleUsers are the accounts that post and vote on the demo board.
// Their passwords are random: nobody signs in as them.
var DemoArticleUsers = []string{"ada", "brian", "carmen", "dmitri", "esther", "farid", "gwen", "hiro", "ines", "jonas"}

// demoArticle is one seeded post: a title with a link, a text, or both.
type demoArticle struct {
	title, link, body string
	groups            []string
}

// demoArticles are what a shop's readers write about: the things they
// bought, looking after them, and making things.
var demoArticles = []demoArticle{
	{"How I re-waxed my canvas jacket", "", "Mine had gone pale at the shoulders and let the rain through after three winters.\n\nI warmed a bar of wax in a pan of hot water, rubbed it in with a cloth, then went over every seam with a hair dryer until the wax sank in. It took an evening and it beads water again. Do it outside: the smell stays for a day.", []string{"care", "products"}},
	{"Cast iron care after ten years", "", "My skillet is older than my car. What keeps it black and slick: cook in it often, rinse it hot, dry it on the burner, and wipe a drop of oil in while it is warm.\n\nSoap is fine, soaking is not. If rust shows, scrub it off and season it twice.", []string{"care", "kitchen"}},
	{"Sharpening a chef's knife on a whetstone", "https://en.wikipedia.org/wiki/Sharpening_stone", "Soak the stone, hold the angle with two coins under the spine while you learn, and count strokes so both sides match. Ten minutes a month beats any pull-through sharpener.", []string{"care", "kitchen"}},
	{"First night in the Trail Tent", "", "Pitched it in the garden first, which I recommend: the second pole clips in backwards if you are not looking.\n\nOn the hill it stayed dry through a night of drizzle. The porch fits boots and a pack, not much more.", []string{"products", "outdoors"}},
	{"Building the raised bed kit, step by step", "", "Lay the corners out on level ground before you screw anything; square it by measuring the diagonals. Line the bottom with cardboard and fill it with a mix of compost and topsoil. Mine took an afternoon with two people.", []string{"making", "outdoors"}},
	{"Darning wool socks so they last another winter", "https://en.wikipedia.org/wiki/Darning", "A darning egg helps, but a light bulb or an orange works. Weave over the hole a little past the worn part, not just the hole itself.", []string{"care", "making"}},
	{"Which pour-over kettle for a small kitchen?", "", "The counter fits one kettle. Is a gooseneck worth it if I also boil water for pasta? Tell me what you use every day.", []string{"products", "kitchen"}},
	{"The Leidenfrost effect, or why water dances on a hot pan", "https://en.wikipedia.org/wiki/Leidenfrost_effect", "", []string{"kitchen"}},
	{"Seasoning a new skillet: oils compared", "", "I tried flaxseed, sunflower and lard on three pans over a month. Flaxseed looked best and flaked first. Sunflower was the one I would use again.", []string{"care", "kitchen"}},
	{"Packing list for a two-night hike", "", "Tent, sleeping bag rated five degrees below the forecast, stove with one gas can, headlamp, water filter, a warm layer even in summer, and a small first-aid kit.\n\nLeave the second pair of shoes at home.", []string{"outdoors"}},
	{"Re-proofing a rain jacket that wets out", "https://en.wikipedia.org/wiki/Durable_water_repellent", "Wash it with a technical wash first; dirt is usually the problem. A warm tumble dry brings the coating back before you reach for a spray.", []string{"care", "outdoors"}},
	{"A cutting board from offcuts", "", "Three strips of maple and one of walnut, glued edge to edge, planed flat and oiled. Not perfect, but it is the board everyone reaches for.", []string{"making", "kitchen"}},
	{"Sourdough starter from scratch", "https://en.wikipedia.org/wiki/Sourdough", "", []string{"kitchen", "making"}},
	{"Fountain pen ink that survives a spill", "", "After a coffee went over my notebook I switched to a pigment ink. It needs a rinse of the pen every few weeks, and the page stays readable.", []string{"products"}},
	{"How to fold a fitted sheet (really)", "", "Corners into corners, inside out, then lay it flat and fold the curved edges in. It still will not look like the shop's, but it fits the shelf.", []string{"offtopic"}},
	{"Looking after a wooden cutting board", "https://en.wikipedia.org/wiki/Mineral_oil", "Wash by hand, stand it on its edge to dry, and oil it when it looks thirsty. Never the dishwasher.", []string{"care", "kitchen"}},
	{"Mending a hole in a down sleeping bag", "", "A round patch of repair tape, cut with rounded corners so it does not lift, on both sides of the shell. Push the feathers back in first.", []string{"care", "outdoors"}},
	{"The Dutch oven bread everyone asks about", "", "No kneading: flour, water, salt and a pinch of yeast, left overnight. Bake it in the Dutch oven with the lid on for half an hour, then lid off until it is dark.\n\nThe heavy lid is the whole trick.", []string{"kitchen"}},
	{"Leave No Trace: the seven principles", "https://en.wikipedia.org/wiki/Leave_No_Trace", "", []string{"outdoors"}},
	{"Upcycling an old denim jacket into a tote", "", "The back panel makes the bag, the sleeves make the straps. A denim needle and a slow machine speed are all you need.", []string{"making"}},
	{"Getting a headlamp to last a whole trip", "", "Use the low setting for camp, keep the batteries warm in your sleeping bag at night, and lock the switch in your pack. Mine lasted four nights on one charge.", []string{"products", "outdoors"}},
	{"Candle tunnelling and how to fix it", "", "Burn it long enough the first time for the whole top to melt. If it has tunnelled already, wrap foil round the rim with a hole in the middle and let it burn an hour.", []string{"care", "products"}},
	{"Sashiko: visible mending for beginners", "https://en.wikipedia.org/wiki/Sashiko", "Running stitches in a grid over a patch. It turned the knee of my work trousers into the part people ask about.", []string{"making", "care"}},
	{"What is your desk setup?", "", "A monitor stand, a lamp and a notebook here. Show me yours: what did you buy that you use every day, and what did you regret?", []string{"offtopic"}},
	{"A week of one-pan dinners", "", "Monday sausages and peppers, Tuesday fried rice, Wednesday shakshuka, Thursday gnocchi, Friday fish and tomatoes. One pan, one wash.", []string{"kitchen"}},
	{"Choosing a sleeping bag temperature rating", "https://en.wikipedia.org/wiki/Sleeping_bag", "", []string{"products", "outdoors"}},
	{"Restoring a thrifted wall clock", "", "New movement, a clean of the glass and a coat of wax on the frame. Two evenings and the price of a sandwich.", []string{"making"}},
	{"Keeping a hammock from sagging", "", "Hang it with a thirty-degree angle on the straps, not tight as a drum. Lie across it on the diagonal.", []string{"outdoors"}},
	{"Knife storage: block, magnet or drawer?", "", "The magnet looks best and keeps the edges, but the block is what the kids cannot reach. What do you do?", []string{"kitchen", "products"}},
	{"Composting in a small garden", "https://en.wikipedia.org/wiki/Compost", "Half greens, half browns, and turn it when you remember. The bin from the shop fits behind the shed.", []string{"outdoors", "making"}},
	{"Cleaning canvas sneakers without ruining them", "", "Brush the dry dirt off, then a soft brush with soapy water. Stuff them with paper and dry them away from the radiator, or the glue lets go.", []string{"care", "products"}},
	{"Weaving a storage basket from willow", "https://en.wikipedia.org/wiki/Basket_weaving", "", []string{"making"}},
	{"The board game we play every Friday", "", "Ours is the one with the trains. It takes an hour, nobody gets left out, and the box has survived six years.", []string{"offtopic"}},
	{"Washing wool by hand: what worked for me", "", "Lukewarm water, wool wash, no rubbing. Roll it in a towel to press the water out and dry it flat. My scarf is still the size it was.", []string{"care"}},
	{"Bike commuting through winter", "", "Mudguards, lights on both ends, and gloves a size bigger than you think. The hardest part is the first ten minutes out of the door.", []string{"offtopic", "outdoors"}},
	{"Ask the shop: which items run out most often?", "", "I keep finding the thing I want sold out. Which ones go fastest, and is there a way to hear when they are back?", []string{"products"}},
}

// demoComments are the demo readers' comments; demoReplies their replies
// to them.
var demoComments = []string{
	"Thank you, this is exactly what I needed.",
	"Tried this last weekend and it worked.",
	"Very clear, thanks for writing it up.",
	"Does this work on the older model too?",
	"Saved for when mine needs it.",
	"I do it a little differently, but the idea is the same.",
}

var demoReplies = []string{
	"Same here, it made a real difference.",
	"Yes, mine is the old one and it worked fine.",
	"Good to know, I will try it that way.",
}

// seedArticles fills an empty board with the demo articles, posted over the
// last twelve hours by the demo users, with their votes and a few comments
// (a third comment replies to the first).
// It runs only when the `article:` counter is unset, and only on the one
// instance that claims the seed marker, so several instances starting at
// once seed once (a seeding that fails half way is not retried: the marker
// stays). The content is the same on every run (a fixed random seed); only
// the times follow the clock.
func (s *Service) seedArticles(ctx context.Context) error {
	if !s.opt.Articles {
		return nil
	}
	if ok, err := s.Board.ClaimDemo(ctx, s.instance); err != nil || !ok {
		return err
	}
	users, err := s.demoUsers(ctx)
	if err != nil {
		return fmt.Errorf("seed articles: %w", err)
	}
	rng := mrand.New(mrand.NewPCG(20261121, 1))
	now := s.clock.Now()
	// The posts span the last twelve hours: a vote is worth VOTE_SCORE
	// seconds, so with ten voters an article's votes move it by up to about
	// an hour and a half, past several of its neighbours. Top then differs
	// from New as on a live board, where the day's liked posts rise.
	span := 12 * time.Hour
	for i, d := range demoArticles {
		posted := now.Add(-span + time.Duration(i)*span/time.Duration(len(demoArticles)) + time.Duration(rng.IntN(600))*time.Second)
		if posted.After(now) {
			posted = now
		}
		poster := users[rng.IntN(len(users))]
		// Each article has its own appeal: some are liked by nearly
		// everyone, some are voted down.
		appeal := rng.IntN(100)
		up, down := []int64{poster.ID}, []int64(nil)
		for _, u := range users {
			switch r := rng.IntN(100); {
			case u.ID == poster.ID:
			case r < appeal:
				up = append(up, u.ID)
			case r < appeal+(100-appeal)/3:
				down = append(down, u.ID)
			}
		}
		if err := s.seedArticle(ctx, d, poster, posted, now, up, down, rng, users); err != nil {
			return fmt.Errorf("seed articles: %w", err)
		}
	}
	s.log.Info("seeded demo articles", "articles", len(demoArticles), "users", len(users))
	return nil
}

// seedArticle writes one demo article posted at posted (not after now)
// with up to three comments, dated in order between the post and now: the
// time from the post to now is cut in one slot per comment, and each falls
// in the later part of its own slot.
func (s *Service) seedArticle(ctx context.Context, d demoArticle, poster sessions.User, posted, now time.Time, up, down []int64, rng *mrand.Rand, users []sessions.User) error {
	var comments []board.Comment
	n := rng.IntN(4)
	slot := now.Sub(posted) / time.Duration(max(n, 1))
	for j := range n {
		u := users[rng.IntN(len(users))]
		into := time.Duration(600+rng.IntN(3000)) * slot / 3600 // 1/6 to 1 of the slot
		at := posted.Add(time.Duration(j)*slot + into)
		c := board.Comment{UserID: u.ID, User: u.Username, Body: demoComments[rng.IntN(len(demoComments))], Posted: at}
		// The third comment answers the first, so that threads show,
		// from someone else than the first's author.
		if j == 2 {
			if u.ID == comments[0].UserID {
				u = users[(slices.Index(users, u)+1)%len(users)]
			}
			c.UserID, c.User, c.Parent = u.ID, u.Username, 1
			c.Body = demoReplies[len(d.title)%len(demoReplies)]
		}
		comments = append(comments, c)
	}
	a, err := s.Board.WriteDemo(ctx, board.Article{Title: d.title, Link: d.link, Body: d.body, Poster: poster.Username, PosterID: poster.ID,
		Posted: posted, Groups: d.groups}, up, down, comments)
	if err != nil {
		return err
	}
	// As a post from the page would: the author's posts and counter, and
	// the followers' feeds (following an author later copies these in).
	return s.Social.RecordPost(ctx, social.FeedEntry{
		ArticleID: a.ID, AuthorID: a.PosterID, AuthorName: a.Poster,
		Title: a.Title, Link: a.Link, PostedAt: float64(a.Posted.UnixMicro()) / 1e6,
	})
}

// demoUsers creates the demo accounts, or finds them if they exist.
func (s *Service) demoUsers(ctx context.Context) ([]sessions.User, error) {
	users := make([]sessions.User, 0, len(DemoArticleUsers))
	for _, name := range DemoArticleUsers {
		u, err := s.Sessions.EnsureDemoUser(ctx, name)
		if err != nil {
			return nil, err
		}
		users = append(users, u)
	}
	return users, nil
}
