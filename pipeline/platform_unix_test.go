//go:build unix

package pipeline

import (
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// processCPUTime is the CPU time this process has used (all threads).
func processCPUTime() time.Duration { return cpuTime(unix.CLOCK_PROCESS_CPUTIME_ID) }

// runAs makes a child process run as the user and group id.
func runAs(id uint32) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: id, Gid: id}}
}
