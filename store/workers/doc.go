// Package workers is how the data layer's background loops run and
// report, whichever domain owns them:
//   - Worker, the loop main starts and stops (Name, Run);
//   - leases (`lease:<name>`), which let one instance at a time run a
//     worker that must run once across instances, and Leased, the one
//     loop that takes the lease, runs a pass and reports it;
//   - reports (`worker:<name>`), each worker's last run and running
//     totals, which the admin dashboard reads whichever instance ran it,
//     and the storefront_worker_runs_total series.
//
// A Host is this instance as its workers see it (its name, clients and
// clock); the wiring makes one and gives it to every domain with a worker.
//
// Tests: workers_test.go here; every worker's behaviour is tested in its
// domain's package.
package workers
