//go:build unix

package main

import "syscall"

// mkfifo makes a FIFO at path (the --run and --scenario cases that must
// not block on one).
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }
