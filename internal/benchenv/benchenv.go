// Package benchenv reads the sizes benchmarks and soaks take from the
// environment, so that a user can rerun them at other sizes.
package benchenv

import (
	"os"
	"strconv"
	"testing"
)

// Int returns the positive integer in the environment variable name, or def
// when it is not set; anything else fails the benchmark with a message that
// names the variable and its value.
func Int(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		tb.Fatalf("%s must be a positive integer, got %q", name, v)
	}
	return n
}
