package platform

import (
	"sync/atomic"
	"time"
)

// Clock is the data layer's time: time.Now unless a test sets another.
// Every service of one shop shares one Clock, so a test that moves it
// moves it everywhere. The zero Clock (and a nil one) is the real time.
type Clock struct {
	now atomic.Pointer[func() time.Time]
}

// Now is the current time.
func (c *Clock) Now() time.Time {
	if c != nil {
		if f := c.now.Load(); f != nil {
			return (*f)()
		}
	}
	return time.Now()
}

// Set replaces the time source; tests use it to move time.
func (c *Clock) Set(now func() time.Time) { c.now.Store(&now) }

// Seconds is the current time as fractional Unix seconds, the unit of
// every time-ordered sorted set (sub-second precision, so events in the
// same second keep their order).
func (c *Clock) Seconds() float64 { return float64(c.Now().UnixMicro()) / 1e6 }
