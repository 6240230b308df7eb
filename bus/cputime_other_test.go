//go:build !unix

package bus

import (
	"testing"
	"time"
)

// cpuTime is not measured on this system: benchmarks report zero CPU time.
func cpuTime(b *testing.B) time.Duration { return 0 }
