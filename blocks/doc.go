// Package blocks declares, once, the scenario blocks a consuming package
// takes as they are: destination: (package destination's Config embeds
// it) and autoscale: (campaign/autoscale's policy), with the scaler's
// decision record that the scaler returns and run.json keeps. Each block
// is one struct: its keys are the `key` tags, its defaults one value of it
// (DestinationDefaults, AutoscaleDefaults), its bounds the `min`, `max`
// and `gt` tags, and its enums the Values of its string types. The
// scenario file checker, the JSON Schema and the reference pages read
// them from here (Keys), so a default or bound is written nowhere else.
//
// blocks is a leaf: it imports no other sharebench package.
package blocks
