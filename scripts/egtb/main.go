// Command egtb builds chess endgame tables by retrograde analysis and
// writes them as table files (search/retro), printing for each its counts,
// longest mate, build time, file size and memory.
//
//	go run ./scripts/egtb -out egtb KQK KRK KPK KBBK KBNK
//
// An argument connect4:WxH builds the database of every position of
// Connect Four on a board of W columns and H rows instead, written as
// connect4-WxH.rtb:
//
//	go run ./scripts/egtb -out egtb connect4:4x4 connect4:5x4 connect4:4x5
//
// A table that a capture or promotion leads to is built first (KPK needs
// KQK and KRK); one already in the output folder is loaded instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"tabula/internal/cputime"
	"tabula/search/retro"
)

func main() {
	out := flag.String("out", "egtb", "output folder")
	workers := flag.Int("workers", 0, "goroutines (0: GOMAXPROCS)")
	flag.Parse()
	if flag.NArg() == 0 {
		log.Fatal("egtb: name the materials to build, such as KQK KBNK")
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b := &builder{out: *out, workers: *workers, done: map[string]*retro.Table{}}
	for _, sig := range flag.Args() {
		if board, ok := strings.CutPrefix(sig, "connect4:"); ok {
			if err := b.connect4(ctx, board); err != nil {
				log.Fatal(err)
			}
			continue
		}
		if _, err := b.table(ctx, sig, true); err != nil {
			log.Fatal(err)
		}
	}
}

type builder struct {
	out     string
	workers int
	done    map[string]*retro.Table
}

// table returns the table of sig, loading it from the output folder or
// building it (and the tables it needs) and saving it; rebuild forces a
// build.
func (b *builder) table(ctx context.Context, sig string, rebuild bool) (*retro.Table, error) {
	ps, err := retro.ParseMaterial(sig)
	if err != nil {
		return nil, err
	}
	sig = retro.Signature(ps)
	if t, ok := b.done[sig]; ok {
		return t, nil
	}
	path := filepath.Join(b.out, sig+retro.Ext)
	if !rebuild {
		if t, err := retro.Load(path); err == nil {
			b.done[sig] = t
			return t, nil
		}
	}
	subs := map[string]*retro.Table{}
	for _, m := range retro.SuccessorMaterials(ps) {
		if t, err := b.table(ctx, m, false); err != nil {
			return nil, err
		} else if t != nil {
			subs[m] = t
		}
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	t, err := retro.BuildChess(ctx, sig, subs, b.workers)
	if err != nil {
		return nil, err
	}
	took := time.Since(start)
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if err := t.Save(path); err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	s := t.Stats
	fmt.Printf("%-5s indices %d positions %d wins %d draws %d losses %d longest mate %d moves (%d plies) passes %d build %.1fs (%d workers) file %d bytes table %d bytes peak heap %.0f MiB\n",
		sig, t.Size(), s.Positions, s.Wins, s.Draws, s.Losses, (s.LongestWin+1)/2, s.LongestWin, s.Passes,
		took.Seconds(), s.Workers, fi.Size(), t.Size(), float64(after.HeapSys)/(1<<20))
	b.done[sig] = t
	return t, nil
}

// connect4 builds and saves the Connect Four table of a board "WxH".
func (b *builder) connect4(ctx context.Context, board string) error {
	var w, h int
	if _, err := fmt.Sscanf(board, "%dx%d", &w, &h); err != nil || fmt.Sprintf("%dx%d", w, h) != board {
		return fmt.Errorf("egtb: connect4:%s: want connect4:WxH, such as connect4:5x4", board)
	}
	runtime.GC()
	start, cpu := time.Now(), cputime.Process()
	t, err := retro.BuildConnect4(ctx, w, h, b.workers)
	if err != nil {
		return err
	}
	took, cpuTook := time.Since(start), cputime.Process()-cpu
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	path := filepath.Join(b.out, "connect4-"+t.Name()+retro.Ext)
	if err := t.Save(path); err != nil {
		return err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	s := t.Stats
	start0, _ := t.Probe(nil)
	fmt.Printf("connect4 %s indices %d positions %d wins %d draws %d losses %d longest win %d plies empty board %v passes %d build %.1fs wall %.1f CPU-s (%d workers) file %d bytes table %d bytes peak heap %.0f MiB\n",
		t.Name(), t.Size(), s.Positions, s.Wins, s.Draws, s.Losses, s.LongestWin, start0, s.Passes,
		took.Seconds(), cpuTook.Seconds(), s.Workers, fi.Size(), t.Size(), float64(after.HeapSys)/(1<<20))
	return nil
}
