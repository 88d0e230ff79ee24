package mail

import "context"

// PassWithoutLease runs one delivery pass as the worker does, without
// taking the lease: tests use it to race workers on the claims alone.
func (s *Service) PassWithoutLease(ctx context.Context) { s.deliverPass(ctx) }

// Database is what the outbox asks of its database handle.
type Database = database

// UseDatabase replaces the outbox's database handle (a faulty one).
func (s *Service) UseDatabase(db Database) { s.db = db }
