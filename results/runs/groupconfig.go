package runs

// GroupConfig is run.json's group_config: the share-group settings the
// harness set on the run's group (IncrementalAlterConfigs on the GROUP
// resource, before the members joined) and what DescribeConfigs read back
// right after, with each value's source (GROUP_CONFIG when the group's own
// setting is in force).
type GroupConfig struct {
	Applied  map[string]string `json:"applied"`
	ReadBack map[string]string `json:"read_back"`
	Source   map[string]string `json:"source,omitempty"`
	// InForceAfterMs is how long after IncrementalAlterConfigs returned
	// DescribeConfigs first read every value back (the brokers apply group
	// configs from the metadata log, a moment later).
	InForceAfterMs float64 `json:"in_force_after_ms"`
}
