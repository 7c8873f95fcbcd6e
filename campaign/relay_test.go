package campaign

import (
	"strings"
	"testing"
)

// An agent's failure text and output reach the console masked and bounded:
// one 200 KB line holding a password is neither printed whole nor in clear.
func TestShardFailureIsMaskedAndBounded(t *testing.T) {
	const pw = "AgentFailPw11"
	huge := strings.Repeat("x", 100<<10) + " password=" + pw + " " + strings.Repeat("y", 100<<10)
	withPw := "sasl password=" + pw + " rejected"
	msg := shardFailed(0, withPw+huge, huge+"\n"+withPw).Error()
	if strings.Contains(msg, pw) {
		t.Errorf("relayed agent failure holds the password")
	}
	if len(msg) > 10<<10 {
		t.Errorf("relayed agent failure is %d bytes: not bounded", len(msg))
	}
	if !strings.Contains(msg, "bytes cut") || !strings.HasPrefix(msg, "shard 0 failed: sasl password=REDACTED") {
		t.Errorf("want the start kept and the cut said: %.200q", msg)
	}
}
