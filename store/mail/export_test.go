package mail

import "context"

// PassWithoutLease runs one delivery pass as the worker does, without
// taking the lease: tests use it to race workers on the claims alone.
func (s *Service) PassWithoutLease(ctx context.Context) { s.deliverPass(ctx) }
