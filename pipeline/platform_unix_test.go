//go:build unix

package pipeline

import "syscall"

// runAs makes a child process run as the user and group id.
func runAs(id uint32) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: id, Gid: id}}
}
