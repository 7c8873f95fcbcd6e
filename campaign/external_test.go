package campaign

import (
	"context"
	"strings"
	"testing"

	"github.com/sharebench/sharebench/infra"
)

func TestExternalProviderNeedsBootstrap(t *testing.T) {
	_, err := (&infra.ExternalProvider{}).Start(context.Background(), infra.ClusterSpec{})
	if err == nil || !strings.Contains(err.Error(), "--bootstrap") {
		t.Fatalf("err %v", err)
	}
	if _, err := provider(Options{Provider: "external"}); err == nil || !strings.Contains(err.Error(), "--bootstrap") {
		t.Fatalf("campaign without bootstrap: %v", err)
	}
}
