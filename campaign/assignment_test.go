package campaign

import (
	"fmt"
	"strings"
	"testing"
)

// The formation line lists at most maxAssignmentShown members and says how
// many it leaves out.
func TestJoinAssignmentBounded(t *testing.T) {
	var parts []string
	for i := range 1500 {
		parts = append(parts, fmt.Sprintf("sharebench-%04d: [%d]", i, i))
	}
	got := joinAssignment(parts)
	if !strings.HasPrefix(got, "sharebench-0000: [0]; sharebench-0001: [1]; ") || !strings.HasSuffix(got, "; and 1476 more members") ||
		strings.Count(got, "sharebench-") != maxAssignmentShown {
		t.Errorf("joinAssignment of 1,500 members = %q", got)
	}
	if got := joinAssignment([]string{"b: [1]", "a: [0]"}); got != "a: [0]; b: [1]" {
		t.Errorf("two members: %q", got)
	}
}
