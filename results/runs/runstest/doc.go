// Package runstest builds run records and campaign folders for the tests
// of report and of the importers of runs (runs' own tests cannot import it).
//
// runstest imports results, results/runs and scenarios only; only tests
// import it.
package runstest
