//go:build !unix

package pipeline

import (
	"syscall"
	"time"
)

// processCPUTime is not measured on this system: zero.
func processCPUTime() time.Duration { return 0 }

// runAs leaves a child process as this user: there are no Unix user ids.
func runAs(id uint32) *syscall.SysProcAttr { return nil }
