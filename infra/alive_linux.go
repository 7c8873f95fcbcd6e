package infra

import (
	"os"
	"strconv"
	"strings"
)

// processAlive reports whether pid is a live process: it exists and is not
// a zombie (a harness killed hard leaves its dead children as zombies until
// init reaps them).
func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}
