// Package report owns every rendering of a campaign's results: summary.md
// (Markdown), report.html (its template and the SVG chart code), runs.csv,
// the console tables, the comparison of two campaigns, and the
// expectation, recommendation, max-rate and event tables. Each renderer is
// a function of what it renders returning a Reporter, func(io.Writer) error;
// WriteFiles writes a campaign folder's files.
//
// report may import results and results/runs (never the reverse) and
// scenarios; it must not import the fleets, collectors, providers or CLI.
package report
