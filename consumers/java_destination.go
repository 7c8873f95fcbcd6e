package consumers

import (
	"fmt"
	"strconv"

	"github.com/sharebench/sharebench/destination"
)

// A client runner's write stage (Destination.java, runner.py's
// Destination): its members write each completed record with their own
// driver (pgJDBC, psycopg), after processing and before the
// acknowledgement or commit, running the statement the franz-go members
// run (destination.Config.Statement) and reporting each write in a
// frameWrite, which the fleet records as a franz-go member's write
// (results.MemberRecorder.RecordDestinationWrite), so the run's
// destination figures and reconciliation are the same for every client.
// Under destination.connections the members of one runner process share
// one pool of that many connections (each taking at most pool of them).

// checkRunnerDestination refuses what a runner's write stage does not do.
func checkRunnerDestination(client Client, d destination.Config) error {
	if d.DSN == "" || d.Table == "" {
		return fmt.Errorf("consumers: destination: client %s needs the run's destination (dsn and table) for its runner", client)
	}
	if d.BatchSize > 1 {
		return fmt.Errorf("consumers: destination.batch_size: client %s writes one record per statement; use batch_size 1 or client franz-go", client)
	}
	return nil
}

// runnerDestinationLines are the destination's settings in a runner's
// configuration file (mode 0600, removed once read): the server from the
// dsn (destination.ParseDSN, which registers its secrets with redact) and
// the statement to run, with $1..$5 for the runner to rewrite into its
// driver's placeholders.
func runnerDestinationLines(d destination.Config) ([]string, error) {
	cfg, err := destination.ParseDSN(d.DSN)
	if err != nil {
		return nil, fmt.Errorf("destination: dsn: %w", err)
	}
	cc := cfg.ConnConfig
	sslmode := "disable"
	if cc.TLSConfig != nil {
		sslmode = "require"
		for _, f := range cc.Fallbacks {
			if f.TLSConfig == nil {
				sslmode = "prefer"
			}
		}
	}
	return []string{
		"destination.host=" + propertyValue(cc.Host),
		"destination.port=" + strconv.Itoa(int(cc.Port)),
		"destination.database=" + propertyValue(cc.Database),
		"destination.user=" + propertyValue(cc.User),
		"destination.password=" + propertyValue(cc.Password),
		"destination.sslmode=" + sslmode,
		"destination.topic=" + propertyValue(d.Topic),
		"destination.statement=" + propertyValue(d.Statement()),
		"destination.pool=" + strconv.Itoa(max(d.Pool, 1)),
		"destination.connections=" + strconv.Itoa(max(d.Connections, 0)),
	}, nil
}
