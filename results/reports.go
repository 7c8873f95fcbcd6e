package results

import "path/filepath"

// WriteReports renders a campaign's reports into its folder from the run
// records (and, for report.html, the .hgrm and timeseries.csv files beside
// them): summary.md, report.html and runs.csv. It returns the files it wrote.
func WriteReports(dir string, camp Campaign, runs []RunRecord) ([]string, error) {
	var written []string
	if err := WriteSummaryFile(dir, runs, camp); err != nil {
		return written, err
	}
	written = append(written, filepath.Join(dir, "summary.md"))
	if err := WriteHTMLFile(dir, runs, camp); err != nil {
		return written, err
	}
	written = append(written, filepath.Join(dir, "report.html"))
	if err := WriteRunsCSVFile(dir, runs); err != nil {
		return written, err
	}
	written = append(written, filepath.Join(dir, "runs.csv"))
	return written, nil
}
