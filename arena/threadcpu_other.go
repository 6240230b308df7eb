//go:build !linux

package arena

import "time"

// threadCPU is unknown here: 0.
func threadCPU() time.Duration { return 0 }
