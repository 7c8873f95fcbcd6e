// Package version says which sharebench is running: the module version, the
// VCS revision and dirty flag stamped by the Go toolchain, the Go version
// and the Kafka client library's version, all read from the binary's build
// information. Run records carry them so a result can be traced to its code.
//
// version imports nothing of sharebench, so every package may use it.
package version
