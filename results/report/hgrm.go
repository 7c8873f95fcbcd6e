package report

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// PercentilePoint is one row of an .hgrm percentile distribution: the value
// (ms) at quantile q.
type PercentilePoint struct {
	ValueMs  float64
	Quantile float64
	Count    int64
}

// ReadPercentileFile reads an HdrHistogram percentile text file (.hgrm),
// skipping the header, the summary lines and the final q = 1 row.
func ReadPercentileFile(path string) ([]PercentilePoint, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var pts []PercentilePoint
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 || strings.HasPrefix(fields[0], "#") || fields[0] == "Value" || fields[3] == "inf" {
			continue
		}
		v, err1 := strconv.ParseFloat(fields[0], 64)
		q, err2 := strconv.ParseFloat(fields[1], 64)
		c, err3 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("%s:%d: expected Value Percentile TotalCount 1/(1-Percentile), got %q", path, n, sc.Text())
		}
		pts = append(pts, PercentilePoint{ValueMs: v, Quantile: q, Count: c})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return pts, nil
}
