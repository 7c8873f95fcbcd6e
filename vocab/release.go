package vocab

import (
	"strconv"
	"strings"
)

// SharePreviewLabel is the label every record, console line and report of
// a run on Kafka 4.1 carries: 4.1.x ships share groups (KIP-932) as a
// preview, off until the cluster finalizes the share.version feature at 1,
// without RENEW or the newer group settings (docs/how-to/test-kafka-versions.md).
const SharePreviewLabel = "share groups in preview on Kafka 4.1"

// SharePreview reports whether Kafka release version (X.Y.Z, a suffix
// after the patch number allowed) is one whose share groups are a preview:
// 4.1.x. Anything that does not parse is not.
func SharePreview(version string) bool {
	v, _, _ := strings.Cut(strings.TrimSpace(version), " ") // an external cluster's "4.1.2 (stated ...)"
	parts := strings.SplitN(v, ".", 3)
	if len(parts) != 3 {
		return false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return err1 == nil && err2 == nil && major == 4 && minor == 1
}
