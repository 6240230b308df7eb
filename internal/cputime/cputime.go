// Package cputime reads CPU clocks: the time the calling OS thread, or the
// whole process, has spent running (user and system time together). On a
// shared machine, rates per CPU second hold steadier than rates per
// wall-clock second.
//
// On Linux both clocks come from clock_gettime (CLOCK_THREAD_CPUTIME_ID and
// CLOCK_PROCESS_CPUTIME_ID, nanosecond resolution). On the BSDs and macOS,
// Process comes from getrusage(RUSAGE_SELF) (microseconds) and Thread is not
// measured. Elsewhere neither is measured. A clock that is not measured
// reads 0, so callers test for 0 to leave a CPU figure out.
//
// Thread CPU time is only meaningful across an interval when the goroutine
// stays on one thread: call runtime.LockOSThread around it.
package cputime
