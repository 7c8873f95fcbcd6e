package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/results/runs/runstest"
	"github.com/sharebench/sharebench/vocab"
)

// A run on Kafka 4.1 carries the preview label in every renderer; a 4.2
// run beside it does not.
func TestSharePreviewLabel(t *testing.T) {
	old := runstest.Run("r01-share-kafka4.1.2", "share", 0, 300, 40)
	old.Environment.KafkaVersion = "4.1.2"
	old.Environment.SharePreview = runs.SharePreviewOf("4.1.2")
	cur := runstest.Run("r02-share-kafka4.2.2", "share", 0, 300, 40)
	if old.Environment.SharePreview != vocab.SharePreviewLabel || runs.SharePreviewOf("4.2.2") != "" {
		t.Fatalf("SharePreviewOf: 4.1.2 %q, 4.2.2 %q", old.Environment.SharePreview, runs.SharePreviewOf("4.2.2"))
	}
	line := "r01-share-kafka4.1.2: share groups in preview on Kafka 4.1 (Kafka 4.1.2)"
	recs := []runs.Record{old, cur}
	camp := runs.Campaign{Name: "versions"}
	for _, c := range []struct {
		name string
		r    Reporter
		want []string
	}{
		{"console", Console(recs), []string{"  " + line + "\n"}},
		{"markdown", Markdown(camp, []runs.Record{old}), []string{"> **PREVIEW**: " + line + ".", "Kafka 4.1.2 (share groups in preview on Kafka 4.1)"}},
		{"html", HTML("", camp, recs), []string{`<div class="preview">PREVIEW: ` + line + `</div>`}},
		{"csv", CSV(recs), []string{",share_preview,", ",share groups in preview on Kafka 4.1,"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := c.r(&buf); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(buf.String(), w) {
					t.Errorf("lacks %q", w)
				}
			}
			if n := strings.Count(buf.String(), "r02-share-kafka4.2.2: share groups in preview"); n > 0 {
				t.Errorf("the 4.2.2 run is labelled a preview")
			}
		})
	}
}
