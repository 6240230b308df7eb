//go:build unix

package engineproc

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the program in a process group of its own, so that
// killProcess stops any children it started too (a shell script's sleep).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcess kills the program's process group.
func killProcess(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	_ = cmd.Process.Kill()
}
