// Package tail keeps the end of a stream: the last bytes a child process
// (an agent, the Java runner) wrote, for the error that reports its death.
//
// tail imports nothing of sharebench, so every package may use it.
package tail
