// Package envvars declares the SHAREBENCH_* environment variables that are
// sharebench's own settings rather than scenario keys: the one list the
// scenario loader's allow-list reads (a SHAREBENCH_* variable that is
// neither a scenario key nor one of these is refused, so a misspelt
// SHAREBENCH_PARTITONS=8 is an error, not a silent no-op). Each reader
// names its variable with the constant here. A leaf: it imports nothing
// of sharebench.
package envvars
