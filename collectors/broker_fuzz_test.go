package collectors

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// Any scrape body parses into a sample or an error, never a panic, and a
// sample never carries a NaN or infinite figure into run.json.
func FuzzParseBrokerMetrics(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, p := range files {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("# TYPE x counter\nx 1\n"))
	f.Add([]byte("java_lang_OperatingSystem_ProcessCpuTime NaN\n"))
	f.Add([]byte("jvm_memory_bytes_used{area=\"heap\"} +Inf\n"))
	f.Add([]byte(""))
	f.Add([]byte("# TYPE java_lang_memory_heapmemoryusage_used untyped\njava_lang_memory_heapmemoryusage_used +Inf\n" +
		"# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total +Inf\n"))
	f.Fuzz(func(t *testing.T, body []byte) {
		s, err := ParseBrokerMetrics(bytes.NewReader(body))
		if err != nil {
			return
		}
		for name, v := range map[string]float64{"cpu": s.ProcessCPUSeconds, "cpu load": s.ProcessCPULoad,
			"heap": s.HeapUsedBytes, "heap after gc": s.HeapAfterGCBytes, "gc": s.GCSeconds,
			"share-coordinator writes": s.ShareCoordWrites} {
			if math.IsInf(v, 0) {
				t.Errorf("%s = %v from %q", name, v, body)
			}
		}
	})
}
