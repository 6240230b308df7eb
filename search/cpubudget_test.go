package search

import (
	"context"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabula/games/chess"
	"tabula/internal/cputime"
)

// TestCPUBudget searches with a CPU budget while two busy sibling
// goroutines share the one processor Go may use (GOMAXPROCS 1), so that the
// search runs a third of the time or less. The searching thread's CPU time
// must lie between half the budget (an iteration starts only while less
// than half is spent) and the budget plus a tolerance. A search that
// counted wall-clock time instead would spend a third of its budget or less
// here and fail.
func TestCPUBudget(t *testing.T) {
	if !cputime.ThreadMeasured() {
		t.Skip("no per-thread CPU clock on this system")
	}
	const budget = 40 * time.Millisecond
	cfg := AllFeatures()
	cfg.TableBits, cfg.CPU = 16, budget
	sr, err := New(chess.Game{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	underLoad(func() {
		for _, fen := range benchPositions[:3] {
			st := chessState(t, fen)
			c0, w0 := cputime.Thread(), time.Now()
			res, err := sr.Search(context.Background(), st)
			used, wall := cputime.Thread()-c0, time.Since(w0)
			if err != nil {
				t.Fatal(err)
			}
			if !st.IsLegal(res.Move) {
				t.Errorf("%s: illegal move %d", fen, res.Move)
			}
			t.Logf("%s: depth %d, %d nodes, %v CPU, %v wall", fen, res.Depth, res.Nodes, used, wall)
			if lo, hi := budget/2, budget+budget/4+5*time.Millisecond; used < lo || used > hi {
				t.Errorf("%s: the search used %v of thread CPU time, want %v..%v for a %v budget", fen, used, lo, hi, budget)
			}
		}
	})
}

// TestCPUBudgetThreads searches with Lazy SMP (threads=2) under a CPU
// budget on one Go processor (GOMAXPROCS 1), so that the main search and
// its helper take turns: the budget is their sum, so the process's CPU time
// in each search, measured from outside, lies between half the budget and
// the budget plus a tolerance, and so does the Result's own count, which
// must also account for most of the process's time. A
// budget that counted only the main search's thread would let the process
// spend about twice the budget here and fail; the helper must have
// searched. The tolerance grows by the time of 1024 nodes a thread (the
// clocks are read every 1024 nodes), which the race detector makes large.
func TestCPUBudgetThreads(t *testing.T) {
	if !cputime.ThreadMeasured() {
		t.Skip("no per-thread CPU clock on this system")
	}
	const budget = 60 * time.Millisecond
	cfg := AllFeatures()
	cfg.TableBits, cfg.CPU, cfg.Threads = 16, budget, 2
	sr, err := New(chess.Game{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	lo := budget / 2
	for _, fen := range benchPositions[:3] {
		st := chessState(t, fen)
		c0 := cputime.Process()
		res, err := sr.Search(context.Background(), st)
		used := cputime.Process() - c0
		if err != nil {
			t.Fatal(err)
		}
		if !st.IsLegal(res.Move) {
			t.Errorf("%s: illegal move %d", fen, res.Move)
		}
		perNode := used / time.Duration(max(res.Nodes, 1))
		hi := budget + budget/4 + 10*time.Millisecond + 2*1024*perNode
		t.Logf("%s: depth %d, %d nodes (%d the helper's), %v CPU by the result, %v by the process clock (allowed %v..%v)", fen, res.Depth, res.Nodes, res.HelperNodes, res.CPU, used, lo, hi)
		if res.HelperNodes == 0 {
			t.Errorf("%s: the helper searched no node", fen)
		}
		if used < lo || used > hi {
			t.Errorf("%s: the process used %v of CPU time in the search, want %v..%v for a %v budget over both threads", fen, used, lo, hi, budget)
		}
		// The result's count is the threads' sum, so it is most of the
		// process's time (which also has the runtime's own threads).
		if res.CPU < lo || res.CPU > hi || res.CPU > used+time.Millisecond || res.CPU < used*3/4 {
			t.Errorf("%s: the result counts %v of CPU time (the process %v), want %v..%v and at least 3/4 of the process's", fen, res.CPU, used, lo, hi)
		}
	}
}

// TestCPUBudgetRefusals checks the clear errors for a negative budget.
func TestCPUBudgetRefusals(t *testing.T) {
	cfg := AllFeatures()
	cfg.TableBits, cfg.CPU = 10, -time.Millisecond
	if _, err := New(chess.Game{}, cfg); err == nil || !strings.Contains(err.Error(), "cpu") {
		t.Errorf("negative cpu: err = %v, want one naming cpu", err)
	}
	cfg.CPU = 0
	sr, err := New(chess.Game{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := chessState(t, chess.StartFEN)
	if _, err := sr.SearchLimits(context.Background(), st, Limits{CPU: -time.Millisecond}); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative Limits.CPU: err = %v, want one about a negative limit", err)
	}
}

// underLoad runs f on a locked OS thread while two busy sibling goroutines
// share the one processor Go may use (GOMAXPROCS 1), so that f gets a third
// of the wall-clock time or less.
func underLoad(f func()) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 0
			for !stop.Load() {
				x++
			}
			_ = x
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	f()
}
