package pipeline

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabula/bus"
	"tabula/games"
	"tabula/internal/cputime"
	"tabula/replay"
)

// fakeFeed delivers queued games in order and records acknowledgements;
// dropAcks loses them (a trainer killed between writing and acking).
type fakeFeed struct {
	mu       sync.Mutex
	queue    []busGame
	acked    map[string]int
	dropAcks bool
}

func (f *fakeFeed) fetch(_ context.Context, max int, _ time.Duration) ([]feedItem, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := min(max, len(f.queue))
	var out []feedItem
	for _, g := range f.queue[:n] {
		g := g
		out = append(out, feedItem{game: g, ack: func(context.Context) error {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.dropAcks {
				return errors.New("connection lost")
			}
			f.acked[g.ID]++
			return nil
		}})
	}
	f.queue = f.queue[n:]
	return out, nil
}

// testGames plays n short games of Connect Four for the bus.
func testGames(t testing.TB, g games.Game, worker string, gen, n int) []busGame {
	t.Helper()
	var out []busGame
	for i := 0; i < n; i++ {
		s := g.NewInitialState()
		var ex []replay.Example
		var legal []int
		for ply := 0; !s.IsTerminal() && ply < 6+i; ply++ {
			legal = s.LegalActions(legal[:0])
			e := replay.Example{Obs: make([]float32, len(obsOf(g))), Policy: make([]float32, g.NumActions()), Legal: make([]bool, g.NumActions()), Value: 0}
			s.Observation(e.Obs)
			for _, a := range legal {
				e.Legal[a] = true
			}
			e.Policy[legal[0]] = 1
			ex = append(ex, e)
			s.ApplyAction(legal[(i+ply)%len(legal)])
		}
		data, err := encodeGame(g, ex)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, busGame{ID: newGameID(), Worker: worker, Generation: gen, Data: data})
	}
	return out
}

func obsOf(g games.Game) []float32 {
	p, h, w := g.ObservationShape()
	return make([]float32, p*h*w)
}

func quietLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// barrierFeed delivers the games queued, and each game's ack returns only
// once every game of its fetch is being acknowledged (or fails after a
// second): an ingest that acknowledges one game at a time, paying a round
// trip each, fails its acks.
type barrierFeed struct {
	queue  []busGame
	acked  atomic.Int64
	failed atomic.Int64
}

func (f *barrierFeed) fetch(_ context.Context, max int, _ time.Duration) ([]feedItem, error) {
	n := min(max, len(f.queue))
	var all sync.WaitGroup
	all.Add(n)
	done := make(chan struct{})
	go func() { all.Wait(); close(done) }()
	out := make([]feedItem, n)
	for i, g := range f.queue[:n] {
		out[i] = feedItem{game: g, ack: func(context.Context) error {
			all.Done()
			select {
			case <-done:
				f.acked.Add(1)
				return nil
			case <-time.After(time.Second):
				f.failed.Add(1)
				return errors.New("ack timed out")
			}
		}}
	}
	f.queue = f.queue[n:]
	return out, nil
}

// TestIngestCatchesUp: with a backlog, one step takes up to ingestCatchUp x
// chunk_games games into one chunk, and acknowledges them together, not one
// round trip after another (one at a time, the ingest falls minutes behind
// self-play on a busy machine: docs/benchmarks.md, "The bus").
func TestIngestCatchesUp(t *testing.T) {
	g, _ := games.New("connect4")
	dir := t.TempDir()
	rdir := filepath.Join(dir, replayDir)
	buf, err := replay.Open(rdir, g, replay.Config{Window: 100_000}, "train", quietLog())
	if err != nil {
		t.Fatal(err)
	}
	const chunk = 4
	in, err := openIngest(filepath.Join(dir, ingestLedger), rdir, g, buf, chunk, 2, func() int { return 0 }, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	defer in.close()
	feed := &barrierFeed{queue: testGames(t, g, "w", 0, 3*chunk*ingestCatchUp)}
	n, _, err := in.step(context.Background(), feed, time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if n != chunk*ingestCatchUp {
		t.Fatalf("one step took %d games of a backlog of %d, want %d (%d x chunk_games %d)", n, 3*chunk*ingestCatchUp, chunk*ingestCatchUp, ingestCatchUp, chunk)
	}
	if tot := in.total(); tot.Games != n || tot.Chunks != 1 {
		t.Fatalf("stored %d games in %d chunks, want %d in 1", tot.Games, tot.Chunks, n)
	}
	if feed.failed.Load() != 0 || feed.acked.Load() != int64(n) {
		t.Fatalf("%d acks went through and %d timed out, want %d and 0: the acks were sent one after another", feed.acked.Load(), feed.failed.Load(), n)
	}
}

// ingestFixture returns Connect Four, a run folder, and a function that
// opens the folder's replay buffer (a window of window examples) and an
// ingest of batch games a chunk, dropping games more than maxStale
// generations behind best.
func ingestFixture(t *testing.T, window, batch, maxStale, best int) (games.Game, string, func() (*replay.Buffer, *ingest)) {
	t.Helper()
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rdir := filepath.Join(dir, replayDir)
	return g, dir, func() (*replay.Buffer, *ingest) {
		buf, err := replay.Open(rdir, g, replay.Config{Window: window}, "train", quietLog())
		if err != nil {
			t.Fatal(err)
		}
		in, err := openIngest(filepath.Join(dir, ingestLedger), rdir, g, buf, batch, maxStale, func() int { return best }, quietLog())
		if err != nil {
			t.Fatal(err)
		}
		return buf, in
	}
}

// TestIngestDropsRepeatsAndStale: a game delivered twice in one batch,
// again after its ack was lost, and again after a restart of the trainer
// (a new ingest reading the ledger) is stored once; a game of a network too
// far behind the best, and one whose data is damaged, are acknowledged and
// dropped; a ledger line whose chunk never appeared does not count.
func TestIngestDropsRepeatsAndStale(t *testing.T) {
	g, dir, open := ingestFixture(t, 1000, 4, 1, 5)
	rdir := filepath.Join(dir, replayDir)
	buf, in := open()
	fresh := testGames(t, g, "wa", 5, 3)
	old := testGames(t, g, "wb", 3, 1)[0] // 2 generations behind 5, max 1
	bad := testGames(t, g, "wb", 5, 1)[0]
	bad.Data = append([]byte(nil), bad.Data...)
	bad.Data[len(bad.Data)/2] ^= 0xff
	feed := &fakeFeed{acked: map[string]int{}, queue: []busGame{fresh[0], fresh[0], fresh[1], old, bad}}
	for {
		n, _, err := in.step(context.Background(), feed, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	// Lost acks: written, then delivered again.
	feed.dropAcks = true
	feed.queue = []busGame{fresh[2]}
	in.step(context.Background(), feed, time.Millisecond)
	feed.dropAcks = false
	feed.queue = []busGame{fresh[2], fresh[1]}
	in.step(context.Background(), feed, time.Millisecond)
	tot := in.total()
	if tot.Games != 3 || tot.Stale != 1 || tot.Bad != 1 || tot.Duplicates != 3 {
		t.Fatalf("totals %+v, want 3 games, 1 stale, 1 bad, 3 duplicates", tot)
	}
	for _, gm := range append(fresh, old, bad) {
		if feed.acked[gm.ID] == 0 {
			t.Errorf("game %s@%s never acknowledged", gm.ID, gm.Worker)
		}
	}
	in.close()

	// A ledger line for a chunk that never appeared (a write cut short):
	// its game comes again and is stored.
	lost := testGames(t, g, "wa", 5, 1)[0]
	f, _ := os.OpenFile(filepath.Join(dir, ingestLedger), os.O_APPEND|os.O_WRONLY, 0)
	f.Write(formatLedgerLine("chunk", "chunk-00000000000000000001-train-999999.tbr", []ledgerGame{{lost.ID, "wa"}}))
	f.Write([]byte("chunk torn-line-without-newline")) // and a line cut short
	f.Close()

	// The trainer restarts: the ledger says what is stored.
	_, in = open()
	defer in.close()
	feed.queue = append([]busGame{fresh[0], fresh[1], fresh[2], old, bad}, lost)
	for {
		n, _, err := in.step(context.Background(), feed, time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if tot := in.total(); tot.Games != 1 || tot.Duplicates != 5 {
		t.Fatalf("after the restart: %+v, want the lost game stored and 5 repeats dropped", tot)
	}
	inReplay, workerOf, dropped, err := ledgerIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []busGame{fresh[0], fresh[1], fresh[2], lost}
	if len(inReplay) != len(want) {
		t.Fatalf("%d games in replay, want %d: %v", len(inReplay), len(want), inReplay)
	}
	for _, gm := range want {
		if inReplay[gm.ID] != 1 || workerOf[gm.ID] != gm.Worker {
			t.Errorf("game %s: stored %d times by %q, want once by %q", gm.ID, inReplay[gm.ID], workerOf[gm.ID], gm.Worker)
		}
	}
	if !dropped[old.ID] || !dropped[bad.ID] || len(dropped) != 2 {
		t.Errorf("dropped %v, want the stale and the damaged game", dropped)
	}
	// The examples on disk are those of the stored games, once each.
	wantEx := 0
	for _, gm := range want {
		ex, _ := decodeGame(g, gm.Data)
		wantEx += len(ex)
	}
	total := 0
	files, _ := filepath.Glob(filepath.Join(rdir, "*"+replay.ChunkSuffix))
	for _, file := range files {
		_, ex, err := replay.ReadChunkFile(file)
		if err != nil {
			t.Fatal(err)
		}
		total += len(ex)
	}
	if total != wantEx || buf.Len() == 0 {
		t.Fatalf("%d examples in the replay folder, want %d", total, wantEx)
	}
}

// TestIngestRedeliveryOnBus: on the real bus, a game written by a trainer
// that died before acknowledging it is delivered again to the next one,
// which drops it.
func TestIngestRedeliveryOnBus(t *testing.T) {
	g, _ := games.New("connect4")
	dir := t.TempDir()
	srv, err := bus.StartServer(bus.ServerConfig{Dir: filepath.Join(dir, "bus")})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	ctx := context.Background()
	connect := func(name string) *bus.Bus {
		b, err := bus.Connect(ctx, bus.Options{URL: srv.URL(), Name: name, Run: "t", AckWait: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	wb := connect("wa")
	defer wb.Close()
	gs := testGames(t, g, "wa", 0, 3)
	pub := busPublisher{wb}
	for _, gm := range append(gs, gs[1]) { // the last one is published twice
		if err := pub.publish(ctx, gm); err != nil {
			t.Fatal(err)
		}
	}
	rdir := filepath.Join(dir, replayDir)
	run := func(dropAcks bool) ingestTotals {
		tb := connect(trainerName)
		defer tb.Close()
		cons, err := tb.Consumer(ctx, trainerName)
		if err != nil {
			t.Fatal(err)
		}
		var feed gameFeed = busFeed{cons}
		if dropAcks {
			feed = lostAcks{feed}
		}
		buf, err := replay.Open(rdir, g, replay.Config{Window: 1000}, "train", quietLog())
		if err != nil {
			t.Fatal(err)
		}
		in, err := openIngest(filepath.Join(dir, ingestLedger), rdir, g, buf, 2, 2, func() int { return 0 }, quietLog())
		if err != nil {
			t.Fatal(err)
		}
		defer in.close()
		for idle := 0; idle < 2; {
			n, _, err := in.step(ctx, feed, 100*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				idle++
			}
		}
		return in.total()
	}
	// (Redeliveries may reach the first trainer already: it drops them.)
	if tot := run(true); tot.Games != 3 {
		t.Fatalf("first trainer: %+v, want 3 games stored once each", tot)
	}
	time.Sleep(400 * time.Millisecond) // past AckWait: the server redelivers
	if tot := run(false); tot.Games != 0 || tot.Duplicates != 3 {
		t.Fatalf("second trainer: %+v, want the 3 redelivered games dropped", tot)
	}
	inReplay, _, _, err := ledgerIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, gm := range gs {
		if inReplay[gm.ID] != 1 {
			t.Errorf("game %s stored %d times, want once", gm.ID, inReplay[gm.ID])
		}
	}
	if len(inReplay) != 3 {
		t.Errorf("%d games stored, want 3", len(inReplay))
	}
}

// lostAcks is a feed whose acknowledgements never reach the server.
type lostAcks struct{ gameFeed }

func (l lostAcks) fetch(ctx context.Context, max int, wait time.Duration) ([]feedItem, error) {
	items, err := l.gameFeed.fetch(ctx, max, wait)
	for i := range items {
		items[i].ack = func(context.Context) error { return nil }
	}
	return items, err
}

// TestBusOptionsRefuseOpenServerWithoutToken: listening beyond loopback
// needs a token; -listen and -nats exclude each other.
func TestBusOptionsRefuseOpenServerWithoutToken(t *testing.T) {
	for _, c := range []struct {
		opt  BusOptions
		want string
	}{
		{BusOptions{Listen: "0.0.0.0:4222"}, "a token is required"},
		{BusOptions{Listen: "192.168.1.5:4222"}, "a token is required"},
		{BusOptions{Listen: "4222"}, "want host:port"},
		{BusOptions{Listen: ":4222", Token: "x"}, "has no host"},
		{BusOptions{Listen: "127.0.0.1:4222", URL: "nats://h:4222"}, "choose one"},
		{BusOptions{URL: "h:4222"}, "want a URL"},
	} {
		err := c.opt.validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
	for _, ok := range []BusOptions{{}, {Listen: "127.0.0.1:0"}, {Listen: "localhost:4222"}, {Listen: "0.0.0.0:4222", Token: "s3cret"}, {URL: "nats://h:4222"}} {
		if err := ok.validate(); err != nil {
			t.Errorf("%+v: %v", ok, err)
		}
	}
	// A trainer given such options refuses before it creates anything.
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := New(smoke(t, dir), Options{Bus: BusOptions{Listen: "0.0.0.0:4222"}}); err == nil {
		t.Fatal("a trainer listening on 0.0.0.0 without a token started")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused trainer created %s", dir)
	}
}

// recordingPublisher keeps what it is given.
type recordingPublisher struct {
	mu    sync.Mutex
	games []busGame
}

func (r *recordingPublisher) publish(_ context.Context, g busGame) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.games = append(r.games, g)
	return nil
}

// TestBusSinkDropsStaleGames: a worker whose network is more than
// bus.max_stale_generations behind the best publishes nothing and stops
// the round (errStale) to load the new best.
func TestBusSinkDropsStaleGames(t *testing.T) {
	g, _ := games.New("connect4")
	ex, err := decodeGame(g, testGames(t, g, "w", 0, 1)[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	best := 4
	pub := &recordingPublisher{}
	sink := &busSink{g: g, pub: pub, worker: "w", generation: 2, best: func() int { return best }, maxStale: 2, log: quietLog()}
	// ahead 0 (the trainer's own self-play): put returns once published.
	if err := sink.put(context.Background(), ex, len(ex)); err != nil || len(pub.games) != 1 {
		t.Fatalf("2 generations behind with max 2: %v, %d published", err, len(pub.games))
	}
	gm := pub.games[0]
	if gm.Worker != "w" || gm.Generation != 2 || len(gm.ID) != 32 {
		t.Errorf("published %+v", gm)
	}
	if back, err := decodeGame(g, gm.Data); err != nil || len(back) != len(ex) {
		t.Errorf("the published data does not decode: %v", err)
	}
	best = 5
	if err := sink.put(context.Background(), ex, len(ex)); !errors.Is(err, errStale) || len(pub.games) != 1 || sink.stale.Load() != 1 {
		t.Fatalf("3 generations behind with max 2: %v, %d published, %d stale", err, len(pub.games), sink.stale.Load())
	}
}

// TestExistingNATSServer: trainer and worker on a NATS server of their own
// (train -nats, selfplay -nats): no server is embedded, the worker takes
// config and network from the bus, and the trainer's next start stores the
// worker's games, tagged with its name.
func TestExistingNATSServer(t *testing.T) {
	dir := t.TempDir()
	srv, err := bus.StartServer(bus.ServerConfig{Dir: filepath.Join(t.TempDir(), "nats"), Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Shutdown()
	opt := Options{Bus: BusOptions{URL: srv.URL(), Token: "s3cret"}}
	sets := []string{"iterations=1", "ladder.every=0", "bench.every=0", "bus.run=ext"}
	tr, err := New(smoke(t, dir, sets...), opt)
	if err != nil {
		t.Fatal(err)
	}
	if tr.server != nil {
		t.Fatal("a server was embedded beside -nats")
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if _, err := os.Stat(filepath.Join(dir, busDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run folder has a bus store with -nats: %v", err)
	}
	// A wrong token is refused with a clear error.
	wo := WorkerOptions{ID: "ext-worker", Workers: 1, Games: 3, Seed: 5}
	err = RunRemoteWorker(context.Background(), RemoteOptions{WorkerOptions: wo, URL: srv.URL(), Token: "wrong", Run: "ext"})
	if err == nil || !strings.Contains(err.Error(), "wrong token") {
		t.Fatalf("worker with a wrong token: %v", err)
	}
	if err := RunRemoteWorker(context.Background(), RemoteOptions{WorkerOptions: wo, URL: srv.URL(), Token: "s3cret", Run: "ext"}); err != nil {
		t.Fatal(err)
	}
	tr, err = New(smoke(t, dir, append(sets, "iterations=2")...), opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	inReplay, workerOf, _, err := ledgerIDs(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for id, c := range inReplay {
		if c != 1 {
			t.Errorf("game %s stored %d times", id, c)
		}
		if workerOf[id] == "ext-worker" {
			n++
		}
	}
	if n != 3 {
		t.Fatalf("%d games of the worker stored, want 3", n)
	}
	m := readMetrics(t, dir)
	w, ok := m[len(m)-1]["workers"].(map[string]any)["ext-worker"].(map[string]any)
	if !ok || w["games"].(float64) != 3 {
		t.Errorf("metrics of the last iteration: workers %v", m[len(m)-1]["workers"])
	}
}

// BenchmarkIngest measures the trainer's side of the bus per game: decode,
// one replay chunk per batch of 10 games (ledger line synced, chunk written
// atomically), acknowledgement (a no-op here: the bus's own cost is measured
// in package bus). Connect Four games of about 20 positions.
//
//	go test ./pipeline -run '^$' -bench Ingest -benchtime 2000x
func BenchmarkIngest(b *testing.B) {
	g, _ := games.New("connect4")
	pool := testGames(b, g, "w", 0, 64)
	dir := b.TempDir()
	buf, err := replay.Open(dir, g, replay.Config{Window: 100_000}, "train", quietLog())
	if err != nil {
		b.Fatal(err)
	}
	in, err := openIngest(filepath.Join(dir, ingestLedger), dir, g, buf, 10, 2, func() int { return 0 }, quietLog())
	if err != nil {
		b.Fatal(err)
	}
	defer in.close()
	feed := &fakeFeed{acked: map[string]int{}}
	queue := make([]busGame, b.N)
	positions := 0
	for i := range queue {
		gm := pool[i%len(pool)]
		gm.ID = newGameID()
		queue[i] = gm
	}
	b.ResetTimer()
	feed.queue = queue
	for {
		n, _, err := in.step(context.Background(), feed, time.Millisecond)
		if err != nil {
			b.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	b.StopTimer()
	tot := in.total()
	positions = tot.Positions
	if tot.Games != b.N {
		b.Fatalf("%d games stored of %d", tot.Games, b.N)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
}

// BenchmarkBusIngest measures a game's whole trip through the embedded bus
// in one process, as the trainer's machine pays for it: publishing (client
// and server: the server runs in the trainer), then the trainer's ingest
// (fetch, decode, chunk and ledger written and synced, ack). It reports
// games/s and CPU-ms per game of each half, idle and loaded (every P of
// the process kept busy, as self-play and training keep them in a run; no
// CPU figures there). Connect Four games of about 20 positions.
//
//	go test ./pipeline -run '^$' -bench BusIngest -benchtime 2000x
func BenchmarkBusIngest(b *testing.B) {
	b.Run("idle", func(b *testing.B) { benchBusIngest(b, 0) })
	// loaded: the process's Ps are all busy, as in a run, where self-play
	// and training keep every core: each round trip of the ingest waits
	// for the scheduler.
	b.Run("loaded", func(b *testing.B) { benchBusIngest(b, runtime.GOMAXPROCS(0)+1) })
}

// sink keeps the spinners' arithmetic from being optimised away.
var sink float64

// spin keeps n goroutines busy with arithmetic until stop is called: a
// process whose Ps are all taken, as in a run.
func spin(n int) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := 1.0
			for {
				select {
				case <-done:
					sink = x
					return
				default:
				}
				for i := 0; i < 100_000; i++ {
					x = x*1.0000001 + 1e-9
				}
			}
		}()
	}
	return func() {
		close(done)
		wg.Wait()
	}
}

// embeddedBus starts a bus server storing in dir and connects to it as the
// trainer; both stop when b ends.
func embeddedBus(b *testing.B, dir string) *bus.Bus {
	srv, err := bus.StartServer(bus.ServerConfig{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Shutdown)
	bb, err := bus.Connect(context.Background(), bus.Options{URL: srv.URL(), Name: "trainer", Run: "bench"})
	if err != nil {
		srv.Shutdown()
		b.Fatal(err)
	}
	b.Cleanup(func() { bb.Close() })
	return bb
}

func benchBusIngest(b *testing.B, spinners int) {
	g, _ := games.New("connect4")
	pool := testGames(b, g, "w", 0, 64)
	dir := b.TempDir()
	bb := embeddedBus(b, filepath.Join(dir, "bus"))
	ctx := context.Background()
	cons, err := bb.Consumer(ctx, trainerName)
	if err != nil {
		b.Fatal(err)
	}
	rdir := filepath.Join(dir, replayDir)
	buf, err := replay.Open(rdir, g, replay.Config{Window: 100_000}, "train", quietLog())
	if err != nil {
		b.Fatal(err)
	}
	in, err := openIngest(filepath.Join(dir, ingestLedger), rdir, g, buf, 10, 2, func() int { return 0 }, quietLog())
	if err != nil {
		b.Fatal(err)
	}
	defer in.close()
	pub := busPublisher{bb}
	b.ResetTimer()
	stopSpin := spin(spinners)
	c0, t0 := cputime.Process(), time.Now()
	for i := 0; i < b.N; i++ {
		gm := pool[i%len(pool)]
		gm.ID = newGameID()
		if err := pub.publish(ctx, gm); err != nil {
			b.Fatal(err)
		}
	}
	c1, t1 := cputime.Process(), time.Now()
	for in.total().Games < b.N {
		if _, _, err := in.step(ctx, busFeed{cons}, 100*time.Millisecond); err != nil {
			b.Fatal(err)
		}
	}
	c2, t2 := cputime.Process(), time.Now()
	stopSpin()
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric(n/t1.Sub(t0).Seconds(), "publish-games/s")
	b.ReportMetric(n/t2.Sub(t1).Seconds(), "ingest-games/s")
	if spinners == 0 { // the spinners' CPU would count too
		b.ReportMetric(float64((c1-c0).Microseconds())/1000/n, "publish-cpu-ms/game")
		b.ReportMetric(float64((c2-c1).Microseconds())/1000/n, "ingest-cpu-ms/game")
	}
	b.ReportMetric(float64(in.total().Positions)/n, "positions/game")
}
