package store

import "github.com/prometheus/client_golang/prometheus"

// Collectors returns the store's Prometheus series for /metrics.
func (s *Store) Collectors() []prometheus.Collector { return s.collectors }
