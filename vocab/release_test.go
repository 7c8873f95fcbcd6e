package vocab

import "testing"

func TestSharePreview(t *testing.T) {
	for v, want := range map[string]bool{
		"4.1.0": true, "4.1.2": true, "4.1.2-rc1": true, "4.1.2 (stated by the scenario, not checked)": true,
		"4.2.2": false, "4.0.0": false, "4.10.0": false, "14.1.0": false, "3.1.0": false,
		"4.1": false, "": false, "kfake (not Kafka)": false, "x.1.2": false,
	} {
		if got := SharePreview(v); got != want {
			t.Errorf("SharePreview(%q) = %v, want %v", v, got, want)
		}
	}
}
