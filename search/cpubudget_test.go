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
}

// TestCPUBudgetRefusals checks the clear errors: a CPU budget with helper
// threads, and a negative one.
func TestCPUBudgetRefusals(t *testing.T) {
	cfg := AllFeatures()
	cfg.TableBits, cfg.Threads, cfg.CPU = 10, 2, 10*time.Millisecond
	if _, err := New(chess.Game{}, cfg); err == nil || !strings.Contains(err.Error(), "threads = 1") {
		t.Errorf("cpu with threads=2: err = %v, want one saying threads = 1", err)
	}
	cfg.Threads, cfg.CPU = 1, -time.Millisecond
	if _, err := New(chess.Game{}, cfg); err == nil || !strings.Contains(err.Error(), "cpu") {
		t.Errorf("negative cpu: err = %v, want one naming cpu", err)
	}
	cfg.CPU = 0
	cfg.Threads = 2
	sr, err := New(chess.Game{}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	st := chessState(t, chess.StartFEN)
	if _, err := sr.SearchLimits(context.Background(), st, Limits{CPU: 10 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "threads = 1") {
		t.Errorf("Limits.CPU with threads=2: err = %v, want one saying threads = 1", err)
	}
}
