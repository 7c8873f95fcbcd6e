package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestJoinLabelsConcatenatesAndNames(t *testing.T) {
	sc, err := Join("poc-x", []LabelledScenario{
		{Label: "cap", Name: "poc:cap", YAML: []byte("name: a\nconsumer_type: [consumer, share]\nmembers: 8\n")},
		{Label: "sweep", Name: "poc:sweep", YAML: []byte("name: b\nconsumer_type: share\nmax_poll_records: [10, 20]\nrepeat: 2\njit_warmup: 15s\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Runs) != 2+4 || sc.Name != "poc-x" || sc.Repeat != 2 || sc.JITWarmup < 15*time.Second {
		t.Fatalf("runs %d name %s repeat %d jit %s", len(sc.Runs), sc.Name, sc.Repeat, sc.JITWarmup)
	}
	if got := strings.Join(sc.Dimensions, ","); got != "consumer_type,max_poll_records" {
		t.Errorf("dimensions %s", got)
	}
	if sc.Runs[0].Label != "cap" || sc.Runs[5].Label != "sweep" {
		t.Errorf("labels %q %q", sc.Runs[0].Label, sc.Runs[5].Label)
	}
	if got := sc.RunName(0); got != "r01-cap-consumer-mpr100-t0" {
		t.Errorf("RunName(0) = %s", got)
	}
	if got := sc.RunName(2); !strings.HasPrefix(got, "r03-sweep-share-mpr") {
		t.Errorf("RunName(2) = %s", got)
	}
}

func TestJoinRefuses(t *testing.T) {
	ok := LabelledScenario{Label: "a", Name: "poc:a", YAML: []byte("name: a\n")}
	for _, c := range []struct {
		name  string
		parts []LabelledScenario
		want  string
	}{
		{"bad part", []LabelledScenario{{Label: "a", Name: "poc:a", YAML: []byte("name: a\nmembers: 0\n")}}, "poc:a:2: "},
		{"duplicate label", []LabelledScenario{ok, ok}, `label "a": already used`},
		{"unsafe label", []LabelledScenario{{Label: "a b", Name: "poc:a", YAML: ok.YAML}}, `label "a b"`},
		{"expect", []LabelledScenario{{Label: "a", Name: "poc:a", YAML: []byte("name: a\nexpect:\n  - name: n\n    measure: {runs: all, field: audit.lost, max: 0}\n")}}, "poc:a: expect:"},
		{"two recommends", []LabelledScenario{
			{Label: "a", Name: "poc:a", YAML: []byte("name: a\nmax_poll_records: [10, 20]\nrecommend: {knob: max_poll_records, maximize: throughput.completed_per_sec}\n")},
			{Label: "b", Name: "poc:b", YAML: []byte("name: b\nmax_poll_records: [10, 20]\nrecommend: {knob: max_poll_records, maximize: throughput.completed_per_sec}\n")},
		}, "poc:b: recommend: only one part"},
	} {
		_, err := Join("j", c.parts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}
