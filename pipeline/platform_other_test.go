//go:build !unix

package pipeline

import "syscall"

// runAs leaves a child process as this user: there are no Unix user ids.
func runAs(id uint32) *syscall.SysProcAttr { return nil }
