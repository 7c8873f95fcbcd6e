package collectors

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// Two recorded scrapes of a real 4.2.2 broker (campaign.TestBrokerCountsLockTimeouts):
// a share member holding records on 2 partitions under a 15 s lock, then
// the same broker after those locks expired. Unlike the share-run fixture,
// their lock-timeout and in-flight series are not 0.
const (
	lockHeldFixture    = "testdata/broker-4.2.2-locktimeout-held.prom"
	lockExpiredFixture = "testdata/broker-4.2.2-locktimeout-expired.prom"
)

func parseLockFixture(t *testing.T, path string) BrokerSample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ParseBrokerMetrics(f)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// lockFigures are a fixture's AcquisitionLockTimeoutPerSec count and
// InFlightMessageCount value summed over its share partitions, read as text.
func lockFigures(t *testing.T, path string) (timeouts, inFlight float64) {
	t.Helper()
	return fixtureSum(t, path, "kafka_server_sharepartitionmetrics_count", `name="AcquisitionLockTimeoutPerSec"`),
		fixtureSum(t, path, "kafka_server_sharepartitionmetrics_value", `name="InFlightMessageCount"`)
}

// The parser sums the lock series over the share partitions, and the
// recorded values are the ones the recording saw: records in flight while
// held and after, and timeouts that rose by the records in flight.
func TestParseBrokerMetricsLockTimeoutFixtures(t *testing.T) {
	heldTO, heldIF := lockFigures(t, lockHeldFixture)
	expTO, expIF := lockFigures(t, lockExpiredFixture)
	if heldIF <= 0 || expTO-heldTO != heldIF {
		t.Fatalf("fixtures: in flight %v while held; timeouts %v → %v: want > 0 and a rise by the records in flight", heldIF, heldTO, expTO)
	}
	for _, c := range []struct {
		path               string
		timeouts, inFlight float64
	}{{lockHeldFixture, heldTO, heldIF}, {lockExpiredFixture, expTO, expIF}} {
		s := parseLockFixture(t, c.path)
		if s.AcquisitionLockTimeouts != c.timeouts || s.InFlightMessages != c.inFlight {
			t.Errorf("%s: lock timeouts %v, in flight %v; want %v and %v (summed over the share partitions)",
				c.path, s.AcquisitionLockTimeouts, s.InFlightMessages, c.timeouts, c.inFlight)
		}
	}
}

// The run summary carries both: scraped from a broker that serves the
// held scrape and then the expired one, SummarizeBroker gives the timeouts
// over the run (expired − held) and the largest in-flight sum of the
// window, and run.json names them.
func TestSummarizeBrokerCarriesLockTimeoutsAndInFlight(t *testing.T) {
	held, err := os.ReadFile(lockHeldFixture)
	if err != nil {
		t.Fatal(err)
	}
	expired, err := os.ReadFile(lockExpiredFixture)
	if err != nil {
		t.Fatal(err)
	}
	var served atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if served.Add(1) == 1 {
			w.Write(held)
		} else {
			w.Write(expired)
		}
	}))
	defer srv.Close()
	s := NewBrokerScraper([]string{srv.URL}, time.Second)
	mt := newManualTicker()
	t0 := time.Unix(10_000, 0)
	var scrapes atomic.Int64
	s.Tick, s.Now = mt.Ticker, func() time.Time { return t0.Add(time.Duration(scrapes.Add(1)-1) * 18 * time.Second) }
	s.Start(context.Background())
	mt.tick(t, 1) // the first scrape (held) is done, the second (expired) under way
	s.Stop()
	ss := s.Samples()
	if len(ss[0]) < 2 {
		t.Fatalf("%d scrapes, want ≥ 2", len(ss[0]))
	}
	last := ss[0][len(ss[0])-1].At
	m := SummarizeBroker(ss, t0, last, 20, 2)
	heldTO, heldIF := lockFigures(t, lockHeldFixture)
	expTO, expIF := lockFigures(t, lockExpiredFixture)
	if m.AcquisitionLockTimeoutsTotal != expTO-heldTO || m.InFlightMessagesMax != max(heldIF, expIF) {
		t.Errorf("summary: lock timeouts %v, in flight max %v; want %v and %v",
			m.AcquisitionLockTimeoutsTotal, m.InFlightMessagesMax, expTO-heldTO, max(heldIF, expIF))
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]any
	if err := json.Unmarshal(b, &fields); err != nil {
		t.Fatal(err)
	}
	if fields["acquisition_lock_timeouts_total"] != expTO-heldTO || fields["in_flight_messages_max"] != max(heldIF, expIF) {
		t.Errorf("run.json broker fields: acquisition_lock_timeouts_total %v, in_flight_messages_max %v",
			fields["acquisition_lock_timeouts_total"], fields["in_flight_messages_max"])
	}
}
