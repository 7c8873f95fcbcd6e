//go:build integration

package campaign

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/sharebench/sharebench/infra"
	"github.com/sharebench/sharebench/internal/testkit"
	"github.com/sharebench/sharebench/results/runs"
	"github.com/sharebench/sharebench/scenarios"
	"github.com/sharebench/sharebench/vocab"
)

// A share run on Kafka 4.1.2 (share groups in preview): the process
// provider formats the cluster with share.version=1, so the group consumes;
// every record is accounted for (RELEASEd records are redelivered), the
// brokers accept 4.1's five share group settings and not 4.3's, the lag is
// estimated from the start offsets (4.1 reports none) rather than failing,
// and the record, the log and the report carry the preview label. The
// campaign's own 4.1.2 cluster, no JIT warm-up: about a minute on 2 cores
// once the jars are cached (the first use resolves them with Maven, as for
// every release).
func TestSharePreviewOnKafka41(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	if reason := testkit.MissingTools("java", "mvn"); reason != "" {
		testkit.Unavailable(t, reason)
	}
	sc, err := scenarios.LoadBytes("kafka41.yaml", []byte(`name: kafka41
consumer_type: share
kafka_version: 4.1.2
broker_heap: 512m
partitions: 2
members: 2
workers: 2
max_poll_records: 20
rate: 100
processing: {model: constant, time: 2ms}
ack_mode: explicit
transient_rate: 0.1
warmup: 1s
duration: 3s
drain_timeout: 30s
`), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	res, err := Run(ctx, sc, Options{Provider: "process", ResultsDir: t.TempDir(), Log: &log, NoJITWarmup: true})
	if err != nil {
		t.Log(log.String())
		t.Fatal(err)
	}
	if len(res.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(res.Runs))
	}
	r := res.Runs[0]
	t.Logf("%s: audit %+v outcomes released %d redelivered %d lag %+v flags %v", r.RunID, r.Audit,
		r.Outcomes.Released, r.Outcomes.Redelivered, r.Lag, r.Validity.Codes())
	a := r.Audit
	if !a.Balanced || a.Lost != 0 || a.Produced < 300 || a.CompletedOnce+a.Duplicates+a.Archived != a.Produced {
		t.Errorf("audit %+v: want every produced record completed or archived, none lost", a)
	}
	if r.Outcomes.Released == 0 || r.Outcomes.Redelivered == 0 {
		t.Errorf("released %d, redelivered %d: transient_rate 0.1 of %d records should RELEASE some and see them again",
			r.Outcomes.Released, r.Outcomes.Redelivered, a.Produced)
	}
	e := r.Environment
	if e.KafkaVersion != "4.1.2" || e.SharePreview != vocab.SharePreviewLabel {
		t.Errorf("environment: Kafka %q, share_preview %q", e.KafkaVersion, e.SharePreview)
	}
	if b := e.Broker; b == nil || b.Features["share.version"] != 1 ||
		!slices.Contains(b.GroupConfigs, scenarios.GroupKeyRecordLockDuration) || slices.Contains(b.GroupConfigs, scenarios.GroupKeyDeliveryCountLimit) {
		t.Errorf("broker %+v: want share.version 1 and 4.1's group settings (no %s)", b, scenarios.GroupKeyDeliveryCountLimit)
	}
	if r.Lag.Samples == 0 || slices.Contains(r.Validity.Codes(), runs.CodeCollectorFailed) {
		t.Errorf("lag %+v, flags %v: the start-offset estimate should read the lag", r.Lag, r.Validity.Flags)
	}
	for _, w := range []string{"Kafka 4.1.2 (share groups in preview on Kafka 4.1)", "(share groups in preview on Kafka 4.1)\n"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("log lacks %q", w)
		}
	}
	for file, w := range map[string]string{
		filepath.Join("runs", r.RunID, "run.json"): `"share_preview": "share groups in preview on Kafka 4.1"`,
		"summary.md": "**PREVIEW**: " + r.RunID + ": share groups in preview on Kafka 4.1 (Kafka 4.1.2)",
	} {
		b, err := os.ReadFile(filepath.Join(res.Dir, file))
		if err != nil || !strings.Contains(string(b), w) {
			t.Errorf("%s lacks %q (%v)", file, w, err)
		}
	}
}

// A Kafka 4.1.2 cluster whose share groups are off (share.version 0, as a
// 4.1 cluster nobody enabled them on; here a process cluster downgraded
// with UpdateFeatures), used as an external cluster: a share scenario is
// refused before its first run, naming the command that enables share
// groups, and a consumer scenario runs, primed through a consumer group
// only, its records labelled with the preview.
func TestSharePreviewOffOnExternal41(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: real-broker tests skipped")
	}
	if reason := testkit.MissingTools("java", "mvn"); reason != "" {
		testkit.Unavailable(t, reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl, err := (&infra.ProcessProvider{}).Start(ctx, infra.ClusterSpec{Nodes: 1, KafkaVersion: "4.1.2", Heap: "512m"})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cl.Stop(context.WithoutCancel(ctx)); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	setShareVersion(ctx, t, cl.Bootstrap(), 0)
	ext := &infra.ExternalProvider{Bootstrap: cl.Bootstrap(), MetricsURLs: cl.MetricsURLs()}
	load := func(ctype string) *scenarios.Scenario {
		sc, err := scenarios.LoadBytes("off.yaml", []byte("name: off-"+ctype+"\nconsumer_type: "+ctype+`
kafka_version: 4.1.2
partitions: 2
members: 2
rate: 100
processing: {model: none}
warmup: 1s
duration: 2s
drain_timeout: 30s
`), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		return sc
	}
	var log bytes.Buffer
	began := time.Now()
	_, err = Run(ctx, load("share"), Options{Provider: "external", External: ext, ResultsDir: t.TempDir(), Log: &log, NoJITWarmup: true})
	if err == nil || !strings.Contains(err.Error(), "consumer_type share: the brokers (Kafka 4.1.2") ||
		!strings.Contains(err.Error(), "upgrade --feature share.version=1") {
		t.Fatalf("share scenario on share groups off: err %v", err)
	}
	if d := time.Since(began); d > 30*time.Second {
		t.Errorf("refused after %v: want before priming", d)
	}
	log.Reset()
	res, err := Run(ctx, load("consumer"), Options{Provider: "external", External: ext, ResultsDir: t.TempDir(), Log: &log, NoJITWarmup: true})
	if err != nil {
		t.Log(log.String())
		t.Fatal(err)
	}
	r := res.Runs[0]
	t.Logf("%s: audit %+v environment kafka %q preview %q", r.RunID, r.Audit, r.Environment.KafkaVersion, r.Environment.SharePreview)
	if !r.Audit.Balanced || r.Audit.Lost != 0 || r.Audit.Produced == 0 {
		t.Errorf("audit %+v", r.Audit)
	}
	if r.Environment.SharePreview != vocab.SharePreviewLabel || !strings.Contains(log.String(), "priming through a consumer group only") {
		t.Errorf("share_preview %q; log:\n%s", r.Environment.SharePreview, log.String())
	}
}

// setShareVersion sets the cluster's finalized share.version (UpdateFeatures:
// an upgrade, or a safe downgrade to a lower level) and waits, up to 15 s,
// until ApiVersions reports it: the brokers learn it from the metadata log
// a moment after the request returns (once seen still at the old level).
func setShareVersion(ctx context.Context, t *testing.T, bootstrap []string, level int16) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(bootstrap...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	req := kmsg.NewPtrUpdateFeaturesRequest()
	u := kmsg.NewUpdateFeaturesRequestFeatureUpdate()
	u.Feature, u.MaxVersionLevel, u.UpgradeType = "share.version", level, 2 // 2: safe downgrade (1 upgrades)
	if level > 0 {
		u.UpgradeType = 1
	}
	req.FeatureUpdates = append(req.FeatureUpdates, u)
	req.TimeoutMillis = 10000
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		t.Fatal(err)
	}
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		t.Fatalf("UpdateFeatures share.version=%d: %v", level, err)
	}
	for _, r := range resp.Results {
		if err := kerr.ErrorForCode(r.ErrorCode); err != nil {
			t.Fatalf("UpdateFeatures %s=%d: %v", r.Feature, level, err)
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		f, err := infra.ReadFeatures(ctx, bootstrap)
		if err == nil && f.ShareVersion() == level {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("share.version still %d 15 s after UpdateFeatures to %d (%v)", f.ShareVersion(), level, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
