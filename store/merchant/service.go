package merchant

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"storefront/store/keys"
	"storefront/store/platform"
)

// Service holds the merchant's content in process: every page reads it
// from memory (Current), at no cost to Redis or the database; a change
// saved on any instance is announced on keys.SettingsChannel and every
// instance reads the database again.
type Service struct {
	db       *sql.DB
	rdb      redis.UniversalClient
	log      *slog.Logger
	clock    *platform.Clock
	defaults Settings
	cur      atomic.Pointer[state]
	// changed are told after a change is saved (the wiring purges every
	// cached page): on the instance that saved it, once.
	changed []func(context.Context)
	stop    context.CancelFunc
	done    chan struct{}
	loadMu  sync.Mutex
}

// state is everything read from the database at once.
type state struct {
	settings Settings
	// saved says the admin saved settings (the setup checklist's step).
	saved bool
	// home is the home page's content, homeSaved whether the admin wrote it.
	home      Home
	homeSaved bool
	// pages are the information pages, by title.
	pages []Page
	// logo is the shop's logo, the zero Logo for none.
	logo Logo
}

// New returns the service with defaults (the knobs': the name, the
// address) in force until Load reads what the admin saved, and starts
// listening for changes made on other instances; Close stops it.
func New(b platform.Base, defaults Settings) *Service {
	if defaults.ShopName == "" {
		defaults.ShopName = DefaultShopName
	}
	if defaults.Currency == "" {
		defaults.Currency = DefaultCurrency
	}
	s := &Service{db: b.DB, rdb: b.Redis, log: b.Log, clock: b.Clock, defaults: defaults, done: make(chan struct{})}
	s.cur.Store(&state{settings: defaults, home: DefaultHome})
	ctx, cancel := context.WithCancel(context.Background())
	s.stop = cancel
	go s.listen(ctx)
	return s
}

// Close stops listening for changes.
func (s *Service) Close() {
	s.stop()
	<-s.done
}

// OnChange registers a listener of a saved change (on the instance that
// saved it).
func (s *Service) OnChange(f func(context.Context)) { s.changed = append(s.changed, f) }

// Current is the shop's settings in force, from memory.
func (s *Service) Current() Settings { return s.cur.Load().settings }

// HomeSaved says whether the admin wrote the home page once.
func (s *Service) HomeSaved() bool { return s.cur.Load().homeSaved }

// SettingsSaved says whether the admin saved the settings once.
func (s *Service) SettingsSaved() bool { return s.cur.Load().saved }

// Load reads the saved content from the database (the wiring calls it
// after the migrations; the listener after each announced change).
func (s *Service) Load(ctx context.Context) error {
	s.loadMu.Lock()
	defer s.loadMu.Unlock()
	st := state{settings: s.defaults, home: DefaultHome}
	saved, ok, err := readSettings(ctx, s.db)
	if err != nil {
		return err
	}
	if ok {
		st.settings, st.saved = saved, true
	}
	home, ok, err := readHome(ctx, s.db)
	if err != nil {
		return err
	}
	if ok {
		st.home, st.homeSaved = home, true
	}
	if st.pages, err = readPages(ctx, s.db); err != nil {
		return err
	}
	if st.logo, err = readLogo(ctx, s.db); err != nil {
		return err
	}
	s.cur.Store(&st)
	return nil
}

// SaveSettings checks and saves the settings (a *FieldError says what is
// wrong, and nothing changes), then announces the change.
func (s *Service) SaveSettings(ctx context.Context, in Settings) (Settings, error) {
	in, err := in.Normalize()
	if err != nil {
		return Settings{}, err
	}
	if err := writeSettings(ctx, s.db, in, s.clock.Now().Unix()); err != nil {
		return Settings{}, err
	}
	return in, s.saved(ctx)
}

// saved applies a change here at once, tells the listeners, and announces
// it to the other instances.
func (s *Service) saved(ctx context.Context) error {
	if err := s.Load(ctx); err != nil {
		return err
	}
	for _, f := range s.changed {
		f(ctx)
	}
	if err := s.rdb.Publish(ctx, keys.SettingsChannel, "").Err(); err != nil {
		return fmt.Errorf("announce shop settings: %w", err)
	}
	return nil
}

// listen reads the content again whenever an instance announces a change,
// and on every (re)subscription, since announcements sent while the
// connection was down are lost.
func (s *Service) listen(ctx context.Context) {
	defer close(s.done)
	ps := s.rdb.Subscribe(ctx, keys.SettingsChannel)
	defer ps.Close()
	ch := ps.ChannelWithSubscriptions(redis.WithChannelHealthCheckInterval(time.Second))
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-ch:
			if !ok {
				return
			}
			if sub, isSub := m.(*redis.Subscription); isSub && sub.Kind != "subscribe" {
				continue
			}
			lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			if err := s.Load(lctx); err != nil && ctx.Err() == nil {
				s.log.Warn("shop settings: reading them again after a change", "err", err)
			}
			cancel()
		}
	}
}
