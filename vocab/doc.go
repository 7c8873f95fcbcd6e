// Package vocab owns the typed values that cross packages between a
// scenario, the consumers that run it and the record of the run: the group
// type, client, share acquire and acknowledgement modes, lock renewal,
// member style, prefetch, rebalance protocol and commit. Each is a string
// type spelled exactly as a scenario file and run.json write it, with its
// constants and the list of valid values beside it (Check validates one).
// It also says which Kafka releases ship share groups as a preview
// (SharePreview) and the label their runs carry (SharePreviewLabel).
//
// vocab is a leaf: it imports no other sharebench package, so scenarios,
// consumers and results/runs can all use the same types.
package vocab
