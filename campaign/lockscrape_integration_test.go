//go:build integration

package campaign

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharebench/sharebench/collectors"

	"github.com/sharebench/sharebench/internal/envvars"
)

// The broker counters sharebench reads for lock expiry, on the real broker:
// a share member polls once for 20 records on 2 partitions and holds what it
// got past the group's 15 s lock (the broker's floor) without acknowledging.
// A scrape while it holds them shows them in flight (InFlightMessageCount
// summed over the share partitions); a scrape after the locks expired shows
// the AcquisitionLockTimeoutPerSec counts risen by exactly the records in
// flight (one timeout per record). About 40 s.
//
// SHAREBENCH_SAVE_SCRAPE_DIR=DIR keeps both scrapes as DIR/held.prom and
// DIR/expired.prom (how collectors/testdata/broker-4.2.2-locktimeout-*.prom
// were recorded).
func TestBrokerCountsLockTimeouts(t *testing.T) {
	cl := needKafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	suffix := randomSuffix()
	topic, group := "sharebench-locks-"+suffix, "sharebench-locks-g-"+suffix
	adm, err := newAdmin(cl.Bootstrap())
	if err != nil {
		t.Fatal(err)
	}
	defer adm.close()
	if err := adm.createTopic(ctx, topic, 2, 1); err != nil {
		t.Fatal(err)
	}
	defer adm.deleteTopic(context.Background(), topic)
	const lock = 15 * time.Second
	if err := adm.setGroupConfig(ctx, group, map[string]string{
		"share.auto.offset.reset": "earliest", "share.record.lock.duration.ms": "15000"}); err != nil {
		t.Fatal(err)
	}
	const n = 20
	prod, err := kgo.NewClient(kgo.SeedBrokers(cl.Bootstrap()...), kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err != nil {
		t.Fatal(err)
	}
	recs := make([]*kgo.Record, n)
	for i := range recs {
		recs[i] = &kgo.Record{Partition: int32(i % 3 % 2), Value: []byte{byte(i)}} // 13 on partition 0, 7 on 1
	}
	if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	prod.Close()

	member := newShareMember(t, cl.Bootstrap(), group, topic)
	defer member.Close()
	// One poll only: franz-go accepts the records of the previous poll that
	// were not acknowledged when the member polls again (observed: a second
	// poll left only its own 7 of 20 records in flight).
	held := len(pollShare(ctx, t, member, 30*time.Second)) // never acknowledged
	if held == 0 {
		t.Fatal("the member's poll returned nothing")
	}
	acquired := time.Now()
	url := cl.MetricsURLs()[0]
	a, rawA := scrapeBroker(ctx, t, url)
	time.Sleep(time.Until(acquired.Add(lock + 3*time.Second)))
	b, rawB := scrapeBroker(ctx, t, url)
	t.Logf("held %d records; in flight %v → %v; lock timeouts %v → %v", held, a.InFlightMessages, b.InFlightMessages,
		a.AcquisitionLockTimeouts, b.AcquisitionLockTimeouts)
	// In flight: every record the broker handed to the member, the ones its
	// poll returned and the ones its client buffered (observed: a poll of
	// 13 with 20 in flight).
	if a.InFlightMessages < float64(held) || a.InFlightMessages > n {
		t.Errorf("InFlightMessageCount %v while the member holds %d of %d records", a.InFlightMessages, held, n)
	}
	// The broker counts one timeout per record whose lock expired: each
	// record in flight at the first scrape, once (3 s past one lock, none
	// expired twice; observed on 4.2.2: 20 in flight, +20).
	if d := b.AcquisitionLockTimeouts - a.AcquisitionLockTimeouts; d != a.InFlightMessages {
		t.Errorf("AcquisitionLockTimeoutPerSec count %v → %v: want + the %v records in flight", a.AcquisitionLockTimeouts, b.AcquisitionLockTimeouts, a.InFlightMessages)
	}
	if dir := os.Getenv(envvars.SaveScrapeDir); dir != "" {
		for name, body := range map[string][]byte{"held.prom": rawA, "expired.prom": rawB} {
			if err := os.WriteFile(filepath.Join(dir, name), body, 0o644); err != nil {
				t.Error(err)
			}
		}
	}
}

func scrapeBroker(ctx context.Context, t *testing.T, url string) (collectors.BrokerSample, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	s, err := collectors.ParseBrokerMetrics(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return s, body
}
