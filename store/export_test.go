package store

import "golang.org/x/crypto/bcrypt"

// DummyHashCost is the bcrypt cost of the hash that unknown usernames are
// checked against; it must equal the cost of real hashes.
func (s *Store) DummyHashCost() (int, error) { return bcrypt.Cost(s.dummyHash()) }

// PasswordCost is the bcrypt cost of new password hashes.
func (s *Store) PasswordCost() int { return s.passwordCost() }

// NewCleanupWorker returns the session cleanup worker alone.
func (s *Store) NewCleanupWorker() Worker { return cleanupWorker{s} }
