package pipeline

import (
	"context"
	"errors"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"tabula/games"
	"tabula/replay"
)

// gatedPublisher holds every publish until release is closed (or its
// context ends), counting how many wait at once; fail, when set, fails the
// publish of a game with that number (1-based).
type gatedPublisher struct {
	release chan struct{}
	fail    int

	mu               sync.Mutex
	calls, now, most int
	ids              map[string]int
}

func (p *gatedPublisher) publish(ctx context.Context, g busGame) error {
	p.mu.Lock()
	p.calls++
	n := p.calls
	p.now++
	p.most = max(p.most, p.now)
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		p.now--
		p.mu.Unlock()
	}()
	select {
	case <-p.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	if n == p.fail {
		return errors.New("the stream refused it")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ids == nil {
		p.ids = map[string]int{}
	}
	p.ids[g.ID]++
	return nil
}

func sinkExamples(t *testing.T) (games.Game, []replay.Example) {
	t.Helper()
	g, _ := games.New("connect4")
	ex, err := decodeGame(g, testGames(t, g, "w", 0, 1)[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	return g, ex
}

// TestBusSinkPutDoesNotWaitForTheBus: put returns once a game is queued,
// while the bus has not acknowledged any (the publisher holds them all),
// for publishAhead games beyond those being published; up to
// publishConcurrency publish at once; flush waits for every one, and each
// is published exactly once. A put that waits for its ack never returns
// here.
func TestBusSinkPutDoesNotWaitForTheBus(t *testing.T) {
	g, ex := sinkExamples(t)
	pub := &gatedPublisher{release: make(chan struct{})}
	sink := &busSink{g: g, pub: pub, worker: "w", best: func() int { return 0 }, maxStale: 2, log: quietLog(), ahead: publishAhead}
	n := publishAhead + publishConcurrency
	queued := make(chan error, 1)
	go func() {
		for i := 0; i < n; i++ {
			if err := sink.put(context.Background(), ex, len(ex)); err != nil {
				queued <- err
				return
			}
		}
		queued <- nil
	}()
	select {
	case err := <-queued:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("put waits for the bus: %d games not queued in 30 s with none acknowledged", n)
	}
	// Every publishing goroutine holds a game by now (the queue was full):
	// wait until each is inside publish.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		pub.mu.Lock()
		now := pub.now
		pub.mu.Unlock()
		if now == publishConcurrency {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d publishes at once, want %d", now, publishConcurrency)
		}
	}
	close(pub.release)
	if err := sink.flush(); err != nil {
		t.Fatal(err)
	}
	if len(pub.ids) != n || sink.published.Load() != int64(n) {
		t.Fatalf("%d distinct games published (%d counted), want %d", len(pub.ids), sink.published.Load(), n)
	}
	for id, c := range pub.ids {
		if c != 1 {
			t.Errorf("game %s published %d times", id, c)
		}
	}
	if pub.most != publishConcurrency {
		t.Errorf("at most %d publishes at once, want %d", pub.most, publishConcurrency)
	}
	// The sink publishes again after a flush (its publishing goroutines came and went).
	pub2 := &gatedPublisher{release: make(chan struct{})}
	close(pub2.release)
	sink.pub = pub2
	if err := sink.put(context.Background(), ex, len(ex)); err != nil {
		t.Fatal(err)
	}
	if err := sink.flush(); err != nil || len(pub2.ids) != 1 {
		t.Fatalf("after a flush: %v, %d published", err, len(pub2.ids))
	}
}

// TestBusSinkPublishErrorStopsTheRound: a game the bus refuses fails flush
// and every put after it, with the bus's error, and the games still queued
// are counted lost, not published after the failure was seen.
func TestBusSinkPublishErrorStopsTheRound(t *testing.T) {
	g, ex := sinkExamples(t)
	pub := &gatedPublisher{release: make(chan struct{}), fail: 1}
	close(pub.release)
	sink := &busSink{g: g, pub: pub, worker: "w", best: func() int { return 0 }, maxStale: 2, log: quietLog(), ahead: publishAhead}
	queued := 0
	for i := 0; i < 3; i++ {
		if err := sink.put(context.Background(), ex, len(ex)); err != nil {
			break // the failure may already show
		}
		queued++
	}
	err := sink.flush()
	if err == nil || !strings.Contains(err.Error(), "the stream refused it") {
		t.Fatalf("flush after a refused game: %v", err)
	}
	if err := sink.put(context.Background(), ex, len(ex)); err == nil || !strings.Contains(err.Error(), "the stream refused it") {
		t.Fatalf("put after a refused game: %v", err)
	}
	if p, l := sink.published.Load(), sink.lost.Load(); p+l != int64(queued) || l < 1 || p != int64(len(pub.ids)) {
		t.Errorf("%d games queued: %d published (%d seen by the bus), %d lost", queued, p, len(pub.ids), l)
	}
	if sink.lost.Load() < 1 {
		t.Errorf("the refused game is not counted lost")
	}
}

// TestBusSinkStopsWithinOneGrace: when the round's context ends with the
// bus away, the queued games share one publishGrace: flush returns after
// about publishGrace, not publishGrace for each game in turn (12 games, 4
// at a time, would take three).
func TestBusSinkStopsWithinOneGrace(t *testing.T) {
	if testing.Short() {
		t.Skip("waits publishGrace")
	}
	g, ex := sinkExamples(t)
	pub := &gatedPublisher{release: make(chan struct{})} // never released: the bus is away
	sink := &busSink{g: g, pub: pub, worker: "w", best: func() int { return 0 }, maxStale: 2, log: quietLog(), ahead: publishAhead}
	ctx, cancel := context.WithCancel(context.Background())
	for i := 0; i < 12; i++ {
		if err := sink.put(ctx, ex, len(ex)); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	cancel()
	err := sink.flush()
	took := time.Since(start)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("flush with the bus away after ctx ended: %v, want context.Canceled", err)
	}
	if took < publishGrace/2 || took > 2*publishGrace {
		t.Errorf("flush took %v after ctx ended, want about publishGrace (%v)", took, publishGrace)
	}
	if sink.published.Load() != 0 || sink.lost.Load() != 12 {
		t.Errorf("published %d, lost %d, want 0 and 12", sink.published.Load(), sink.lost.Load())
	}
}

// BenchmarkBusSink measures how fast self-play hands finished games to the
// embedded bus, idle and loaded (every P of the process kept busy, as in a
// run): "wait" is busSink with ahead 0, whose put waits for each game's
// ack (the trainer's own self-play); "sink" has ahead publishAhead (a
// worker process), whose put queues the game (and flush, at
// the end, waits for every ack). games/s counts the whole loop to the last
// ack; put-us is the mean time one put kept its caller, a self-play worker
// with all its games in flight, waiting.
//
//	go test ./pipeline -run '^$' -bench BusSink -benchtime 2000x
func BenchmarkBusSink(b *testing.B) {
	for _, load := range []struct {
		name     string
		spinners int
	}{{"idle", 0}, {"loaded", runtime.GOMAXPROCS(0) + 1}} {
		for _, mode := range []string{"wait", "sink"} {
			b.Run(load.name+"/"+mode, func(b *testing.B) { benchBusSink(b, load.spinners, mode == "sink") })
		}
	}
}

func benchBusSink(b *testing.B, spinners int, queued bool) {
	g, _ := games.New("connect4")
	ex, err := decodeGame(g, testGames(b, g, "w", 0, 1)[0].Data)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	pub := busPublisher{embeddedBus(b, filepath.Join(b.TempDir(), "bus"))}
	s := &busSink{g: g, pub: pub, worker: "w", best: func() int { return 0 }, maxStale: 2, timeout: 30 * time.Second, log: quietLog()}
	stopSpin := spin(spinners)
	defer stopSpin()
	b.ResetTimer()
	if queued {
		s.ahead = publishAhead
	}
	var inPut time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		err := s.put(ctx, ex, len(ex))
		inPut += time.Since(t0)
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := s.flush(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(inPut.Microseconds())/float64(b.N), "put-us")
}
