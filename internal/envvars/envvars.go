package envvars

// Prefix starts every sharebench environment variable; SHAREBENCH_<KEY>
// overrides scenario key <key> (package scenarios).
const Prefix = "SHAREBENCH_"

// The harness's own variables.
const (
	// Cache is where downloads and builds are cached (internal/cachedir).
	Cache = "SHAREBENCH_CACHE"
	// KafkaImage forces the container provider's broker image (infra).
	KafkaImage = "SHAREBENCH_KAFKA_IMAGE"
	// RequireBrokers=1 turns a missing Java or Maven from a skip into a
	// failure in the tests (internal/testkit; .ci/run sets it).
	RequireBrokers = "SHAREBENCH_REQUIRE_BROKERS"
	// AgentClockSkew shifts an agent's clock, for the tests of the clock
	// offset measurement (cmd/sharebench agent).
	AgentClockSkew = "SHAREBENCH_AGENT_CLOCK_SKEW"
	// AgentToken is the token a launcher gives one agent of a sharded run
	// (campaign/shard): it signs the agent's control messages.
	AgentToken = "SHAREBENCH_AGENT_TOKEN"
	// AgentDestinationDSN is the destination database's dsn a launcher
	// gives the agents of a sharded run with a destination: block, in
	// their environment (never on a command line or the control topic).
	AgentDestinationDSN = "SHAREBENCH_AGENT_DESTINATION_DSN"
	// ClusterID is the KRaft cluster id handed to the local broker image's
	// entrypoint (infra container provider; set in the container only).
	ClusterID = "SHAREBENCH_CLUSTER_ID"
	// FormatFeatures are the feature levels (NAME=LEVEL, space-separated)
	// that entrypoint formats a broker's storage with (infra container
	// provider; set in the container only).
	FormatFeatures = "SHAREBENCH_FORMAT_FEATURES"
	// Screenshots keeps the browser test's screenshots (results/report).
	Screenshots = "SHAREBENCH_SCREENSHOTS"
	// SaveScrape and SaveScrapeDir keep broker metric scrapes taken by the
	// integration tests (campaign).
	SaveScrape    = "SHAREBENCH_SAVE_SCRAPE"
	SaveScrapeDir = "SHAREBENCH_SAVE_SCRAPE_DIR"
	// InfraTestHelper makes the infra test binary act as a child process.
	InfraTestHelper = "SHAREBENCH_INFRA_TEST_HELPER"
)

// Harness lists the variables above: SHAREBENCH_* names that are not
// scenario keys and are not refused.
var Harness = []string{Cache, KafkaImage, RequireBrokers, AgentClockSkew, AgentToken, AgentDestinationDSN, ClusterID, FormatFeatures, Screenshots,
	SaveScrape, SaveScrapeDir, InfraTestHelper}
