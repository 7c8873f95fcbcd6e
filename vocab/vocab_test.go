package vocab

import (
	"encoding/json"
	"testing"
)

func TestCheck(t *testing.T) {
	if err := Check(ShareGroup, GroupTypes); err != nil {
		t.Errorf("share: %v", err)
	}
	err := Check(GroupType("shared"), GroupTypes)
	if err == nil || err.Error() != `expected one of consumer, share, got "shared"` {
		t.Errorf("shared: %v", err)
	}
	if err := Check(Renew(""), Renews); err == nil {
		t.Error("empty renew accepted")
	}
}

// The typed values keep the spelling of a scenario file and run.json.
func TestSpelling(t *testing.T) {
	b, err := json.Marshal(struct {
		T GroupType
		A AcquireMode
		K AckMode
		C Client
	}{ShareGroup, AcquireRecordLimit, AckExplicit, ClientFranzGo})
	if err != nil || string(b) != `{"T":"share","A":"record_limit","K":"explicit","C":"franz-go"}` {
		t.Errorf("json %s, %v", b, err)
	}
}

func TestPrefetchForced(t *testing.T) {
	for _, tc := range []struct {
		p    Prefetch
		want string
	}{{PrefetchAuto, "nil"}, {"", "nil"}, {PrefetchOn, "true"}, {PrefetchOff, "false"}} {
		got := "nil"
		if f := tc.p.Forced(); f != nil {
			got = map[bool]string{true: "true", false: "false"}[*f]
		}
		if got != tc.want {
			t.Errorf("%q: %s, want %s", tc.p, got, tc.want)
		}
	}
}
