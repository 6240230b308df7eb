//go:build !linux

package gemm

import "testing"

type cpuClock struct{}

func startCPUClock(b *testing.B) *cpuClock             { return &cpuClock{} }
func (c *cpuClock) report(b *testing.B, flops float64) {}
