// Package audit owns the audit log: who on the staff changed what, when,
// from which address, and the changed fields' values before and after.
// The stores write an entry with Record inside the transaction of the
// change itself, so a change that rolls back leaves no entry and one that
// commits always has its entry. Who acts rides in the request's context
// (WithActor, set by the admin routes' guard); a change made without an
// actor (a shopper, a worker) is not a staff change and Record writes
// nothing. Entries are only ever inserted: nothing here updates or deletes
// one, and no route does.
//
// Table: audit_log. Tests: audit_test.go here; the routes in handlers/
// (staff_audit_test.go).
package audit
