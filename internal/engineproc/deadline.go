package engineproc

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// Deadline bounds the wait for one answer of a program (Proc.Deadline).
type Deadline struct {
	// C receives once when the deadline has passed; nil (never) without
	// a cap.
	C    <-chan time.Time
	stop chan struct{}
	once sync.Once
	mu   sync.Mutex
	why  string
}

// Stop releases the deadline.
func (d *Deadline) Stop() {
	if d.stop != nil {
		d.once.Do(func() { close(d.stop) })
	}
}

// Why says when the deadline passed, for the timeout's error: "within
// 5m0s", and how much CPU time the program had used where that decided.
func (d *Deadline) Why() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.why
}

// The rules of Proc.Deadline.
const (
	// idleShare: a program that used less than this share of one core
	// over the last idleWindow is not working on the answer.
	idleShare  = 0.02
	idleWindow = time.Second
	// maxStretch: past this many times the cap in wall time the program
	// has had enough, however loaded the machine.
	maxStretch = 4
)

// Deadline returns the deadline of one answer the program owes, with the
// cap c (none for c <= 0). Where the program's CPU time can be read (Linux:
// /proc/PID/stat, the process's threads together), the cap is on the CPU
// time the program spends, so that a machine loaded by other jobs does not
// make a slow but working engine forfeit: past c of wall time the
// deadline passes once the program has used c of CPU time since the
// command, or has used under 2% of a core over the last second (it is
// waiting, not thinking: a hung engine), or at 4c of wall time whatever
// it did. Elsewhere, and for a program whose CPU time cannot be read, the
// deadline is c of wall time.
func (p *Proc[T]) Deadline(c time.Duration) *Deadline {
	if c <= 0 {
		return &Deadline{}
	}
	fire := make(chan time.Time, 1)
	d := &Deadline{C: fire, stop: make(chan struct{}), why: fmt.Sprintf("within %v", c)}
	pid := 0
	if p.cmd.Process != nil {
		pid = p.cmd.Process.Pid
	}
	start := time.Now()
	cpu0, ok := processCPU(pid)
	go func() {
		t := time.NewTimer(c)
		defer t.Stop()
		select {
		case <-t.C:
		case <-d.stop:
			return
		}
		if !ok {
			fire <- time.Now()
			return
		}
		poll := min(max(c/10, 50*time.Millisecond), time.Second)
		type sample struct {
			at  time.Time
			cpu time.Duration
		}
		var hist []sample
		for {
			now := time.Now()
			cpu, ok := processCPU(pid)
			if !ok { // gone: Receive sees the death; end the wait anyway
				fire <- now
				return
			}
			cpu -= cpu0
			wall := now.Sub(start)
			hist = append(hist, sample{now, cpu})
			for len(hist) > 1 && now.Sub(hist[1].at) >= idleWindow {
				hist = hist[1:]
			}
			why := ""
			switch first := hist[0]; {
			case cpu >= c:
				why = fmt.Sprintf("within %v of its CPU time (%v of wall time)", c, wall.Round(time.Millisecond))
			case now.Sub(first.at) >= idleWindow && float64(cpu-first.cpu) < idleShare*float64(now.Sub(first.at)):
				why = fmt.Sprintf("within %v: it was not working (%v of CPU time in %v of wall time, none of it lately)", c, cpu.Round(time.Millisecond), wall.Round(time.Millisecond))
			case wall >= maxStretch*c:
				why = fmt.Sprintf("within %v: %v of wall time, %d times the cap (%v of CPU time)", c, wall.Round(time.Millisecond), maxStretch, cpu.Round(time.Millisecond))
			}
			if why != "" {
				d.mu.Lock()
				d.why = why
				d.mu.Unlock()
				fire <- now
				return
			}
			select {
			case <-time.After(poll):
			case <-d.stop:
				return
			}
		}
	}()
	return d
}

// clockTick is the unit of /proc/PID/stat's CPU times: USER_HZ, 100 on
// every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// processCPU returns the user and system CPU time process pid has used (all
// its threads), and false where it cannot be read (not Linux, or the
// process is gone).
func processCPU(pid int) (time.Duration, bool) {
	if pid <= 0 {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// The command name (field 2) is in parentheses and may hold spaces;
	// utime and stime are fields 14 and 15, the 12th and 13th after it.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 || string(f[0]) == "Z" || string(f[0]) == "X" {
		return 0, false
	}
	u, err1 := strconv.ParseUint(string(f[11]), 10, 64)
	s, err2 := strconv.ParseUint(string(f[12]), 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * clockTick, true
}
