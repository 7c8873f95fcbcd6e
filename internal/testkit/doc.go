// Package testkit holds what sharebench's tests share about their
// environment: whether Java, Maven and Docker are here (skip, saying why, or
// fail where SHAREBENCH_REQUIRE_BROKERS=1 demands real brokers), a writer to
// the test log, and the no-orphan checks on broker processes.
//
// Tests that start brokers or containers carry the build tag integration:
// a plain `go test ./...` runs only the unit tests; `make test` runs all of
// them with -tags integration.
//
// testkit imports no sharebench package, so that the infra package's own
// tests can use it; the broker fixtures, which need infra, are in
// testkit/kafkatest.
package testkit
