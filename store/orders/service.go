package orders

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"storefront/store/cart"
	"storefront/store/catalog"
	"storefront/store/keys"
	"storefront/store/platform"
	"storefront/store/pricing"
	"storefront/store/workers"
)

// Service is the orders: checkout, the order lifecycle and fulfilment.
type Service struct {
	rdb      redis.UniversalClient
	db       *sql.DB
	log      *slog.Logger
	clock    *platform.Clock
	instance string
	opt      Options
	catalog  *catalog.Service
	carts    *cart.Service
	prices   *pricing.Service
	host     *workers.Host
	// payments are the payment methods offered, the default first.
	payments []PaymentMethod
	// placed and status are the listeners the wiring registers (OnPlaced,
	// OnStatus).
	placed []func(ctx context.Context, pipe redis.Pipeliner, lines []cart.Line)
	status []func(ctx context.Context, userID, orderID int64, status string)
	// placedTx and statusTx write inside the change's transaction
	// (OnPlacedTx, OnStatusTx).
	placedTx []func(ctx context.Context, tx *sql.Tx, o Order) error
	statusTx []func(ctx context.Context, tx *sql.Tx, ch StatusChange) error
	editedTx []func(ctx context.Context, tx *sql.Tx, e Edit) error
	// format writes an amount in a currency for the notes an edit leaves
	// (SetMoneyFormat; a plain "12.34 USD" until set).
	format func(currency string, minor int64) string
	// refundDoneTx write inside the transaction that records a refund
	// done (OnRefundDoneTx).
	refundDoneTx []func(ctx context.Context, tx *sql.Tx, r Refund) error
	// currency is the shop's currency now (the merchant's settings), which
	// an order records when it is placed (SetCurrency; "USD" until set).
	currency func() string
	// Metrics.
	checkouts *prometheus.CounterVec
	fulfilled prometheus.Counter
	depth     prometheus.Collector
}

// SetCurrency gives the shop's currency in force, an ISO 4217 code that
// every order records when it is placed: its amounts stay in that
// currency whatever the shop's is later.
func (s *Service) SetCurrency(f func() string) { s.currency = f }

// SetMoneyFormat gives the way amounts are written in a currency, for
// the notes that record an edit.
func (s *Service) SetMoneyFormat(f func(currency string, minor int64) string) { s.format = f }

// money writes amounts of currency as the notes show them.
func (s *Service) money(currency string) func(int64) string {
	return func(minor int64) string {
		if s.format != nil {
			return s.format(currency, minor)
		}
		return fmt.Sprintf("%d.%02d %s", minor/100, minor%100, currency)
	}
}

// currencyNow is the currency a new order is priced in.
func (s *Service) currencyNow() string {
	if s.currency == nil {
		return "USD"
	}
	return s.currency()
}

// Options are the orders' knobs; zero values take the defaults.
type Options struct {
	// Shipping prices the delivery methods (zero: DefaultShipping).
	Shipping        ShippingRates
	OrderVisibility time.Duration // a taken order not acknowledged within this goes to another worker
	OrderSweepAge   time.Duration // orders pending longer than this are fulfilled from the database
	OrderPoll       time.Duration // how long a worker waits for new orders per poll
	// PaymentHold is how long an order may await its payment before the
	// hold worker cancels it and releases its stock (PAYMENT_HOLD).
	PaymentHold time.Duration
	// RefundRetry is how soon an owed refund is tried again (doubling
	// with each try, at most an hour) and how often the refunds worker
	// looks (at most a minute).
	RefundRetry time.Duration
}

// New returns the orders: the stock is taken through the catalog, the
// cart emptied through the carts, the order priced (discount, delivery,
// tax) through prices.
func New(b platform.Base, opt Options, host *workers.Host, cat *catalog.Service, carts *cart.Service, prices *pricing.Service) *Service {
	if opt.Shipping == (ShippingRates{}) {
		opt.Shipping = DefaultShipping
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&opt.OrderVisibility, DefaultOrderVisibility}, {&opt.OrderSweepAge, DefaultOrderSweepAge}, {&opt.OrderPoll, DefaultOrderPoll}, {&opt.PaymentHold, DefaultPaymentHold}, {&opt.RefundRetry, DefaultRefundRetry}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	s := &Service{
		rdb: b.Redis, db: b.DB, log: b.Log, clock: b.Clock, instance: b.Instance, opt: opt, host: host, catalog: cat, carts: carts, prices: prices,
		checkouts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "storefront_checkouts_total",
			Help: "Checkouts by result: ok, out_of_stock, price_changed, code_refused, empty, busy, error.",
		}, []string{"result"}),
		fulfilled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "storefront_orders_fulfilled_total",
			Help: "Orders moved from pending to processed by the fulfilment worker or sweep.",
		}),
	}
	s.payments = offlineMethods()
	for _, r := range []string{"ok", "out_of_stock", "price_changed", "code_refused", "empty", "busy", "error"} {
		s.checkouts.WithLabelValues(r) // series from 0, so rate() sees the first checkout
	}
	s.depth = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "storefront_order_queue_depth",
		Help: "Orders in the fulfilment queue, taken or not, not yet acknowledged.",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		n, err := s.rdb.XLen(ctx, keys.OrderQueue).Result()
		if err != nil {
			return math.NaN()
		}
		return float64(n)
	})
	return s
}

// Workers returns this instance's fulfilment consumer, the payment hold
// worker and the refunds worker.
func (s *Service) Workers() []workers.Worker {
	return []workers.Worker{s.Fulfilment(s.instance), s.paymentHoldWorker(), s.refundsWorker()}
}

// Collectors are the orders' Prometheus series.
func (s *Service) Collectors() []prometheus.Collector {
	return []prometheus.Collector{s.checkouts, s.fulfilled, s.depth}
}

// OnPlaced registers a listener for placed orders: it queues its writes
// about the order's lines (item, variant and quantity) on the pipeline
// that empties the cart, so that it costs no round trip of its own (the
// wiring registers the analytics' "also bought" statistics).
func (s *Service) OnPlaced(f func(ctx context.Context, pipe redis.Pipeliner, lines []cart.Line)) {
	s.placed = append(s.placed, f)
}

// OnStatus registers a listener for orders that changed status (the
// wiring registers the shopper's notification). It runs after the change
// committed and handles its own failures.
func (s *Service) OnStatus(f func(ctx context.Context, userID, orderID int64, status string)) {
	s.status = append(s.status, f)
}

// statusChanged tells the OnStatus listeners.
func (s *Service) statusChanged(ctx context.Context, userID, orderID int64, status string) {
	for _, f := range s.status {
		f(ctx, userID, orderID, status)
	}
}
