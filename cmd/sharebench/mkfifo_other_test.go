//go:build !unix

package main

import "errors"

// mkfifo: no FIFOs here.
func mkfifo(string) error { return errors.ErrUnsupported }
