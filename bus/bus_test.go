package bus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"tabula/games"
	_ "tabula/games/connect4"
	"tabula/replay"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func startServer(t testing.TB, cfg ServerConfig) *Server {
	t.Helper()
	s, err := StartServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

func connect(t testing.TB, opt Options) *Bus {
	t.Helper()
	if opt.Run == "" {
		opt.Run = "test"
	}
	if opt.Log == nil {
		opt.Log = quiet
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b, err := Connect(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// gameData returns a Connect Four game of `positions` examples in the
// replay format (as a replay chunk file holds it): random play, with
// policies shaped like visit counts of an 800-simulation search.
func gameData(t testing.TB, positions int, seed uint64) []byte {
	t.Helper()
	g, err := games.New("connect4")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 7))
	p, h, w := g.ObservationShape()
	na := g.NumActions()
	var ex []replay.Example
	s := g.NewInitialState()
	z := float32(1)
	for len(ex) < positions {
		if s.IsTerminal() {
			s = g.NewInitialState()
		}
		legal := s.LegalActions(nil)
		e := replay.Example{Obs: make([]float32, p*h*w), Policy: make([]float32, na), Legal: make([]bool, na), Value: z}
		s.Observation(e.Obs)
		visits := make([]int, na)
		for range 800 {
			visits[legal[min(rng.IntN(len(legal)), rng.IntN(len(legal)))]]++
		}
		for _, a := range legal {
			e.Legal[a] = true
			e.Policy[a] = float32(visits[a]) / 800
		}
		ex = append(ex, e)
		z = -z
		s.ApplyAction(legal[rng.IntN(len(legal))])
	}
	// The bytes a publisher sends: the replay chunk format (uncompressed;
	// the bus compresses it).
	data, err := replay.Encode(g, ex)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// fetchAll fetches until nothing arrives within wait.
func fetchAll(t testing.TB, c *Consumer, ack bool, wait time.Duration) []*Delivery {
	t.Helper()
	ctx := testCtx(t)
	var out []*Delivery
	for {
		ds, err := c.Fetch(ctx, 100, wait)
		if err != nil {
			t.Fatal(err)
		}
		if len(ds) == 0 {
			return out
		}
		for _, d := range ds {
			if ack {
				if err := d.Ack(ctx); err != nil {
					t.Fatal(err)
				}
			}
		}
		out = append(out, ds...)
	}
}

func streamMsgs(t testing.TB, b *Bus) (msgs, bytes uint64) {
	t.Helper()
	s, err := b.js.Stream(testCtx(t), b.stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs, info.State.Bytes
}

func TestPublishFetchAckRoundTrip(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	ctx := testCtx(t)
	pub := connect(t, Options{URL: srv.URL(), Name: "w1"})
	sub := connect(t, Options{URL: srv.URL(), Name: "trainer"})
	c, err := sub.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	want := map[string]Game{}
	raw := 0
	for i := range n {
		g := Game{ID: fmt.Sprintf("w1-%d", i), Generation: i % 3, Data: gameData(t, 40, uint64(i))}
		if i%2 == 1 {
			g.Worker = "other_worker"
		}
		if err := pub.PublishGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		if g.Worker == "" {
			g.Worker = "w1"
		}
		want[g.ID] = g
		raw += len(g.Data)
	}
	msgs, stored := streamMsgs(t, pub)
	if msgs != n {
		t.Fatalf("stream holds %d games, want %d", msgs, n)
	}
	// Compression: the stream's bytes (payloads plus headers and
	// framing) are under the raw replay bytes. (The visit-count policies
	// of these games are random floats; TestCompression shows the ratio on
	// redundant data.)
	if stored >= uint64(raw) {
		t.Errorf("stream stores %d bytes for %d bytes of games: not compressed", stored, raw)
	}
	t.Logf("%d games, %d replay bytes (%d a game), %d bytes in the stream", n, raw, raw/n, stored)

	got := fetchAll(t, c, true, 200*time.Millisecond)
	if len(got) != n {
		t.Fatalf("fetched %d games, want %d", len(got), n)
	}
	for i, d := range got {
		w, ok := want[d.Game.ID]
		if !ok {
			t.Fatalf("unknown game %q", d.Game.ID)
		}
		if d.Game.Worker != w.Worker || d.Game.Generation != w.Generation || !bytes.Equal(d.Game.Data, w.Data) {
			t.Errorf("game %s came back as worker %q generation %d with %d bytes, want %q %d %d bytes (equal)",
				w.ID, d.Game.Worker, d.Game.Generation, len(d.Game.Data), w.Worker, w.Generation, len(w.Data))
		}
		if d.Game.ID != fmt.Sprintf("w1-%d", i) || d.Seq != uint64(i+1) || d.Delivered != 1 {
			t.Errorf("delivery %d: game %s seq %d delivered %d times; want stream order, first delivery", i, d.Game.ID, d.Seq, d.Delivered)
		}
		// The bytes are a valid replay chunk.
		path := filepath.Join(t.TempDir(), "c"+replay.ChunkSuffix)
		os.WriteFile(path, d.Game.Data, 0o644)
		if _, ex, err := replay.ReadChunkFile(path); err != nil || len(ex) != 40 {
			t.Fatalf("game %s: replay chunk with %d examples, err %v", d.Game.ID, len(ex), err)
		}
	}
	if again := fetchAll(t, c, true, 100*time.Millisecond); len(again) != 0 {
		t.Errorf("%d games delivered again after their ack", len(again))
	}
	if p, err := c.Pending(ctx); err != nil || p != 0 {
		t.Errorf("pending = %d, %v; want 0", p, err)
	}
}

func TestCompression(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	ctx := testCtx(t)
	b := connect(t, Options{URL: srv.URL()})
	data := bytes.Repeat([]byte("tabula replay bytes "), 10_000) // 200 kB
	if err := b.PublishGame(ctx, Game{ID: "g", Data: data}); err != nil {
		t.Fatal(err)
	}
	if _, stored := streamMsgs(t, b); stored > 10_000 {
		t.Fatalf("200 kB of redundant data take %d bytes in the stream: not compressed", stored)
	}
	c, err := b.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	got := fetchAll(t, c, true, 100*time.Millisecond)
	if len(got) != 1 || !bytes.Equal(got[0].Game.Data, data) {
		t.Fatalf("fetched %d games, want the one published, equal", len(got))
	}
}

func TestDuplicatePublishStoredOnce(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	ctx := testCtx(t)
	b := connect(t, Options{URL: srv.URL(), Name: "w1"})
	for i := range 3 {
		if err := b.PublishGame(ctx, Game{ID: "same", Data: []byte{byte(i + 1)}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.PublishGame(ctx, Game{ID: "other", Data: []byte{9}}); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := streamMsgs(t, b); msgs != 2 {
		t.Fatalf("stream holds %d messages after publishing one id 3 times and another once, want 2", msgs)
	}
	c, err := b.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	got := fetchAll(t, c, true, 100*time.Millisecond)
	if len(got) != 2 || got[0].Game.ID != "same" || !bytes.Equal(got[0].Game.Data, []byte{1}) || got[1].Game.ID != "other" {
		t.Fatalf("fetched %v, want the first 'same' and 'other'", got)
	}
}

func TestRedeliveryWithoutAck(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	ctx := testCtx(t)
	b := connect(t, Options{URL: srv.URL(), AckWait: 300 * time.Millisecond})
	for i := range 5 {
		if err := b.PublishGame(ctx, Game{ID: "g" + strconv.Itoa(i), Data: []byte("game")}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := b.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	first, err := c.Fetch(ctx, 5, time.Second)
	if err != nil || len(first) != 5 {
		t.Fatalf("first fetch: %d games, %v", len(first), err)
	}
	// Ack two; the other three come back after AckWait.
	for _, d := range first[:2] {
		if err := d.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(500 * time.Millisecond)
	again := fetchAll(t, c, true, 300*time.Millisecond)
	var ids []string
	for _, d := range again {
		ids = append(ids, d.Game.ID)
		if d.Delivered != 2 {
			t.Errorf("game %s delivered %d times, want 2", d.Game.ID, d.Delivered)
		}
	}
	if !slices.Equal(ids, []string{"g2", "g3", "g4"}) {
		t.Fatalf("redelivered %v, want the three unacknowledged games", ids)
	}
	// Nak: delivered again at once.
	if err := b.PublishGame(ctx, Game{ID: "g5", Data: []byte("game")}); err != nil {
		t.Fatal(err)
	}
	d, err := c.Fetch(ctx, 1, time.Second)
	if err != nil || len(d) != 1 {
		t.Fatalf("fetch: %d games, %v", len(d), err)
	}
	if err := d[0].Nak(); err != nil {
		t.Fatal(err)
	}
	d, err = c.Fetch(ctx, 1, 200*time.Millisecond)
	if err != nil || len(d) != 1 || d[0].Game.ID != "g5" || d[0].Delivered != 2 {
		t.Fatalf("after a nak: %v, %v; want g5 again", d, err)
	}
	d[0].Ack(ctx)
}

// listenAddr returns a free loopback port, so that a restarted server
// can take the same address.
func listenAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func TestRestartKeepsAckedGamesAndConsumerPosition(t *testing.T) {
	dir := t.TempDir()
	ctx := testCtx(t)
	srv, err := StartServer(ServerConfig{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	b := connect(t, Options{URL: srv.URL()})
	for i := range 10 {
		if err := b.PublishGame(ctx, Game{ID: "g" + strconv.Itoa(i), Data: []byte("game " + strconv.Itoa(i))}); err != nil {
			t.Fatal(err)
		}
	}
	c, err := b.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := c.Fetch(ctx, 4, time.Second)
	if err != nil || len(ds) != 4 {
		t.Fatalf("fetch: %d, %v", len(ds), err)
	}
	for _, d := range ds {
		if err := d.Ack(ctx); err != nil {
			t.Fatal(err)
		}
	}
	b.Close()
	srv.Shutdown()

	srv2 := startServer(t, ServerConfig{Dir: dir})
	b2 := connect(t, Options{URL: srv2.URL()})
	if msgs, _ := streamMsgs(t, b2); msgs != 10 {
		t.Fatalf("after a restart the stream holds %d games, want 10", msgs)
	}
	c2, err := b2.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range fetchAll(t, c2, true, 200*time.Millisecond) {
		ids = append(ids, d.Game.ID)
		if d.Game.Data == nil || string(d.Game.Data) != "game "+strings.TrimPrefix(d.Game.ID, "g") {
			t.Errorf("game %s: data %q", d.Game.ID, d.Game.Data)
		}
	}
	if want := []string{"g4", "g5", "g6", "g7", "g8", "g9"}; !slices.Equal(ids, want) {
		t.Fatalf("after a restart the consumer delivered %v, want %v", ids, want)
	}
}

func TestPublisherRidesThroughServerRestart(t *testing.T) {
	dir, addr := t.TempDir(), listenAddr(t)
	ctx := testCtx(t)
	srv, err := StartServer(ServerConfig{Dir: dir, Listen: addr})
	if err != nil {
		t.Fatal(err)
	}
	pub := connect(t, Options{URL: srv.URL(), Name: "w1"})
	const n = 300
	published := make(chan int, n)
	errc := make(chan error, 1)
	go func() {
		for i := range n {
			if err := pub.PublishGame(ctx, Game{ID: "g" + strconv.Itoa(i), Data: []byte("data")}); err != nil {
				errc <- err
				return
			}
			published <- i
			time.Sleep(time.Millisecond)
		}
		errc <- nil
	}()
	for range n / 3 {
		<-published
	}
	srv.Shutdown()
	time.Sleep(300 * time.Millisecond)
	if len(published) > 10 {
		t.Errorf("%d publishes acknowledged while the server was down", len(published))
	}
	srv2 := startServer(t, ServerConfig{Dir: dir, Listen: addr})
	if err := <-errc; err != nil {
		t.Fatalf("publisher stopped: %v", err)
	}
	sub := connect(t, Options{URL: srv2.URL()})
	c, err := sub.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	for _, d := range fetchAll(t, c, true, 300*time.Millisecond) {
		seen[d.Game.ID]++
	}
	for i := range n {
		if seen["g"+strconv.Itoa(i)] != 1 {
			t.Errorf("game g%d delivered %d times, want 1", i, seen["g"+strconv.Itoa(i)])
		}
	}
	if len(seen) != n {
		t.Errorf("%d distinct games delivered, want %d", len(seen), n)
	}
}

func TestCheckpointObjectStore(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	// 10 MB under -race on a loaded machine took 40 s: more time than
	// testCtx's minute for the whole test.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	b := connect(t, Options{URL: srv.URL()})
	other := connect(t, Options{URL: srv.URL(), Name: "w1"})
	blob := make([]byte, 10<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range blob {
		blob[i] = byte(rng.Uint32())
	}
	start := time.Now()
	if err := b.PutCheckpoint(ctx, "gen-0003.tbn", blob); err != nil {
		t.Fatal(err)
	}
	put := time.Since(start)
	start = time.Now()
	got, err := other.GetCheckpoint(ctx, "gen-0003.tbn")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("10 MiB checkpoint: put %v, get %v", put, time.Since(start))
	if !bytes.Equal(got, blob) {
		t.Fatal("checkpoint came back different")
	}
	if err := b.PutCheckpoint(ctx, "gen-0004.tbn", []byte("small")); err != nil {
		t.Fatal(err)
	}
	names, err := other.Checkpoints(ctx)
	if err != nil || !slices.Equal(names, []string{"gen-0003.tbn", "gen-0004.tbn"}) {
		t.Fatalf("checkpoints %v, %v", names, err)
	}
	if err := b.DeleteCheckpoint(ctx, "gen-0003.tbn"); err != nil {
		t.Fatal(err)
	}
	if _, err := other.GetCheckpoint(ctx, "gen-0003.tbn"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("deleted checkpoint: err %v, want ErrNotFound", err)
	}
	if _, err := other.GetCheckpoint(ctx, "nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("missing checkpoint: err %v, want ErrNotFound naming it", err)
	}
}

func recvBest(t *testing.T, ch <-chan Best, want Best) {
	t.Helper()
	select {
	case got, ok := <-ch:
		if !ok || got != want {
			t.Fatalf("watch gave %+v (open %v), want %+v", got, ok, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("watch gave nothing in 10 s, want %+v", want)
	}
}

func TestBestWatchFiresOnUpdateAndAfterReconnect(t *testing.T) {
	dir, addr := t.TempDir(), listenAddr(t)
	srv, err := StartServer(ServerConfig{Dir: dir, Listen: addr})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	trainer := connect(t, Options{URL: srv.URL(), Name: "trainer"})
	worker := connect(t, Options{URL: srv.URL(), Name: "w1"})
	if _, err := worker.GetBest(ctx); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GetBest before any: %v, want ErrNotFound", err)
	}
	if err := trainer.SetBest(ctx, Best{Name: "gen-0000", Generation: 0}); err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(ctx)
	ch, err := worker.WatchBest(wctx)
	if err != nil {
		t.Fatal(err)
	}
	recvBest(t, ch, Best{"gen-0000", 0}) // the current value first
	start := time.Now()
	if err := trainer.SetBest(ctx, Best{Name: "gen-0001", Generation: 1}); err != nil {
		t.Fatal(err)
	}
	recvBest(t, ch, Best{"gen-0001", 1})
	t.Logf("watch fired %v after SetBest", time.Since(start))
	if got, err := worker.GetBest(ctx); err != nil || got != (Best{"gen-0001", 1}) {
		t.Fatalf("GetBest = %+v, %v", got, err)
	}

	// The server restarts; the best changes while the worker reconnects.
	srv.Shutdown()
	srv2 := startServer(t, ServerConfig{Dir: dir, Listen: addr})
	trainer2 := connect(t, Options{URL: srv2.URL(), Name: "trainer"})
	if err := trainer2.SetBest(ctx, Best{Name: "gen-0002", Generation: 2}); err != nil {
		t.Fatal(err)
	}
	recvBest(t, ch, Best{"gen-0002", 2})
	if err := trainer2.SetBest(ctx, Best{Name: "gen-0003", Generation: 3}); err != nil {
		t.Fatal(err)
	}
	recvBest(t, ch, Best{"gen-0003", 3})
	stop()
	for range ch { // closes once the context ends
	}
}

func TestTokenRequired(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir(), Token: "s3cret"})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := Connect(ctx, Options{URL: srv.URL(), Run: "test", Log: quiet})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") || !strings.Contains(err.Error(), "requires a token") {
		t.Fatalf("connect without a token: %v, want an authorization error asking for a token", err)
	}
	_, err = Connect(ctx, Options{URL: srv.URL(), Run: "test", Token: "wrong", Log: quiet})
	if err == nil || !strings.Contains(err.Error(), "wrong token") {
		t.Fatalf("connect with a wrong token: %v, want an error saying so", err)
	}
	b := connect(t, Options{URL: srv.URL(), Token: "s3cret"})
	if err := b.PublishGame(ctx, Game{ID: "g", Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if _, err := StartServer(ServerConfig{Dir: t.TempDir(), Listen: "0.0.0.0:0"}); err == nil || !strings.Contains(err.Error(), "token") {
		t.Fatalf("listening on every interface without a token: %v, want an error asking for one", err)
	}
}

func TestHeartbeats(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	ctx := testCtx(t)
	trainer := connect(t, Options{URL: srv.URL(), Name: "trainer", HeartbeatTTL: time.Second})
	if ws, err := trainer.Workers(ctx); err != nil || len(ws) != 0 {
		t.Fatalf("workers before any heartbeat: %v, %v", ws, err)
	}
	w1 := connect(t, Options{URL: srv.URL(), Name: "w1"})
	w2 := connect(t, Options{URL: srv.URL(), Name: "w2"})
	if err := w2.Heartbeat(ctx, Heartbeat{Games: 3, Positions: 90, PositionsPerSec: 45.5, Generation: 2}); err != nil {
		t.Fatal(err)
	}
	if err := w1.Heartbeat(ctx, Heartbeat{Games: 1, Positions: 30}); err != nil {
		t.Fatal(err)
	}
	if err := w1.Heartbeat(ctx, Heartbeat{Games: 2, Positions: 61, PositionsPerSec: 12}); err != nil {
		t.Fatal(err)
	}
	ws, err := trainer.Workers(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 || ws[0].Worker != "w1" || ws[0].Games != 2 || ws[0].Positions != 61 ||
		ws[1].Worker != "w2" || ws[1].PositionsPerSec != 45.5 || ws[1].Generation != 2 || time.Since(ws[1].Time) > time.Minute {
		t.Fatalf("workers = %+v", ws)
	}
	// Past the TTL without a heartbeat, workers drop off the list.
	deadline := time.Now().Add(10 * time.Second)
	for {
		ws, err := trainer.Workers(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(ws) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("workers still listed 10 s after a 1 s TTL: %+v", ws)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestBadInput(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	ctx := testCtx(t)
	b := connect(t, Options{URL: srv.URL(), Name: "w1"})
	c, err := b.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"empty id", "game id is empty", b.PublishGame(ctx, Game{Data: []byte("x")})},
		{"id with a space", "printable ASCII", b.PublishGame(ctx, Game{ID: "a b", Data: []byte("x")})},
		{"long id", "at most 128", b.PublishGame(ctx, Game{ID: strings.Repeat("x", 129), Data: []byte("x")})},
		{"empty data", "no data", b.PublishGame(ctx, Game{ID: "g"})},
		{"negative generation", "generation -1", b.PublishGame(ctx, Game{ID: "g", Generation: -1, Data: []byte("x")})},
		{"bad worker", "worker name", b.PublishGame(ctx, Game{ID: "g", Worker: "a.b", Data: []byte("x")})},
		{"bad consumer name", "consumer name", func() error { _, err := b.Consumer(ctx, "a.b"); return err }()},
		{"fetch 0", "want 1..10000", func() error { _, err := c.Fetch(ctx, 0, time.Second); return err }()},
		{"fetch no wait", "wait", func() error { _, err := c.Fetch(ctx, 1, 0); return err }()},
		{"empty checkpoint name", "checkpoint name is empty", b.PutCheckpoint(ctx, "", []byte("x"))},
		{"empty checkpoint", "no data", b.PutCheckpoint(ctx, "c", nil)},
		{"best without name", "checkpoint name is empty", b.SetBest(ctx, Best{Generation: 1})},
		{"negative best generation", "generation -2", b.SetBest(ctx, Best{Name: "c", Generation: -2})},
		{"bad heartbeat", "want all >= 0", b.Heartbeat(ctx, Heartbeat{Games: -1})},
		{"bad heartbeat worker", "worker name", b.Heartbeat(ctx, Heartbeat{Worker: "w 1"})},
		{"bad run", "run name", func() error { _, err := Connect(ctx, Options{URL: srv.URL(), Run: "a.b"}); return err }()},
		{"no run", "run name", func() error { _, err := Connect(ctx, Options{URL: srv.URL()}); return err }()},
		{"no url", "URL is required", func() error { _, err := Connect(ctx, Options{Run: "r"}); return err }()},
		{"bad name", "client name", func() error { _, err := Connect(ctx, Options{URL: srv.URL(), Run: "r", Name: "x>"}); return err }()},
		{"negative ack wait", "AckWait", func() error {
			_, err := Connect(ctx, Options{URL: srv.URL(), Run: "r", AckWait: -time.Second})
			return err
		}()},
		{"server without dir", "Dir is required", func() error { _, err := StartServer(ServerConfig{}); return err }()},
		{"server bad listen", "listen address", func() error { _, err := StartServer(ServerConfig{Dir: t.TempDir(), Listen: "4222"}); return err }()},
		{"server bad port", "port", func() error {
			_, err := StartServer(ServerConfig{Dir: t.TempDir(), Listen: "127.0.0.1:99999"})
			return err
		}()},
	} {
		if tc.err == nil || !strings.Contains(tc.err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, tc.err, tc.want)
		}
	}
	if msgs, _ := streamMsgs(t, b); msgs != 0 {
		t.Errorf("rejected games reached the stream: %d messages", msgs)
	}
}

func TestConnectWaitsForTheServer(t *testing.T) {
	addr := listenAddr(t)
	var srv *Server
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(500 * time.Millisecond)
		s, err := StartServer(ServerConfig{Dir: t.TempDir(), Listen: addr})
		if err != nil {
			t.Error(err)
			return
		}
		srv = s
	}()
	b := connect(t, Options{URL: "nats://" + addr})
	wg.Wait()
	if srv != nil {
		t.Cleanup(srv.Shutdown)
	}
	if err := b.PublishGame(testCtx(t), Game{ID: "g", Data: []byte("x")}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := Connect(ctx, Options{URL: "nats://" + listenAddr(t), Run: "r", Log: quiet}); err == nil || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("connect to nothing: %v, want the context's deadline", err)
	}
}

func TestMalformedMessageIsDropped(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	ctx := testCtx(t)
	b := connect(t, Options{URL: srv.URL()})
	// Raw messages on the games subject that are not games of ours.
	for _, h := range []map[string]string{
		{"Nats-Msg-Id": "x1"}, // no headers of ours
		{"Nats-Msg-Id": "x2", hdrWorker: "w", hdrGeneration: "0", hdrEncoding: "gzip", hdrSize: "3"},
		{"Nats-Msg-Id": "x3", hdrWorker: "w", hdrGeneration: "0", hdrEncoding: encodingZstd, hdrSize: "3"}, // not zstd
	} {
		m := &natsMsg{subject: b.subject, header: h, data: []byte("abc")}
		if err := m.publish(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.PublishGame(ctx, Game{ID: "good", Data: []byte("game")}); err != nil {
		t.Fatal(err)
	}
	c, err := b.Consumer(ctx, "trainer")
	if err != nil {
		t.Fatal(err)
	}
	got := fetchAll(t, c, true, 200*time.Millisecond)
	if len(got) != 1 || got[0].Game.ID != "good" || c.Corrupt() != 3 {
		t.Fatalf("fetched %d games (want only 'good'), %d dropped as malformed (want 3)", len(got), c.Corrupt())
	}
	time.Sleep(100 * time.Millisecond)
	if again := fetchAll(t, c, true, 200*time.Millisecond); len(again) != 0 || c.Corrupt() != 3 {
		t.Fatalf("malformed messages came again: %d games, %d dropped", len(again), c.Corrupt())
	}
}

func TestStreamLimitsAreUpdated(t *testing.T) {
	srv := startServer(t, ServerConfig{Dir: t.TempDir()})
	ctx := testCtx(t)
	info := func(b *Bus) (int64, time.Duration) {
		s, err := b.js.Stream(ctx, b.stream)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.CachedInfo().Config
		return cfg.MaxBytes, cfg.MaxAge
	}
	b := connect(t, Options{URL: srv.URL()})
	if mb, ma := info(b); mb != DefaultMaxBytes || ma != DefaultMaxAge {
		t.Fatalf("new stream limits %d bytes %v, want the defaults", mb, ma)
	}
	connect(t, Options{URL: srv.URL(), MaxBytes: 1 << 20, MaxAge: time.Hour})
	if mb, ma := info(b); mb != 1<<20 || ma != time.Hour {
		t.Fatalf("limits %d bytes %v after a client set 1 MiB and 1h", mb, ma)
	}
	connect(t, Options{URL: srv.URL(), Name: "w1"}) // a worker with no limits leaves them
	if mb, ma := info(b); mb != 1<<20 || ma != time.Hour {
		t.Fatalf("limits %d bytes %v after a client without limits, want them kept", mb, ma)
	}
}
