package bus

import (
	"context"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time (user + system) this process has used: the
// embedded server's and the clients' together, the fair measure of the
// bus's cost on a shared machine where wall time is noisy.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// timed runs the benchmark's timed part and reports games/s (wall) and
// the CPU microseconds a game cost, server and clients together.
func timed(b *testing.B, games int, f func()) {
	b.ResetTimer()
	cpu := cpuTime(b)
	f()
	cpu = cpuTime(b) - cpu
	b.StopTimer()
	b.ReportMetric(float64(games)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(cpu.Microseconds())/float64(games), "cpu-us/game")
}

// Benchmarks of the bus on the embedded server, with Connect Four games of
// 40 positions in the replay format (gameData: about 1.8 kB each).
//
//	go test -run '^$' -bench 'Publish|Consume' -benchtime 2000x ./bus
//	go test -run '^$' -bench 'Checkpoint|Watch' -benchtime 2s ./bus

func benchGames(b *testing.B) [][]byte {
	b.Helper()
	data := make([][]byte, 16)
	for i := range data {
		data[i] = gameData(b, 40, uint64(i))
	}
	return data
}

// BenchmarkPublishGame publishes games one after another from one client,
// each waiting for its JetStream ack.
func BenchmarkPublishGame(b *testing.B) {
	srv := startServer(b, ServerConfig{Dir: b.TempDir()})
	pub := connect(b, Options{URL: srv.URL(), Name: "w1"})
	data := benchGames(b)
	ctx := context.Background()
	b.SetBytes(int64(len(data[0])))
	timed(b, b.N, func() {
		for i := range b.N {
			if err := pub.PublishGame(ctx, Game{ID: "g" + strconv.Itoa(i), Data: data[i%len(data)]}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPublishGameParallel publishes from 8 clients at once (workers
// on other machines), each game waiting for its ack.
func BenchmarkPublishGameParallel(b *testing.B) {
	srv := startServer(b, ServerConfig{Dir: b.TempDir()})
	data := benchGames(b)
	var clients []*Bus
	for i := range 8 {
		clients = append(clients, connect(b, Options{URL: srv.URL(), Name: "w" + strconv.Itoa(i)}))
	}
	var next, client atomic.Int64
	b.SetParallelism(8) // 8 x GOMAXPROCS goroutines over 8 clients
	timed(b, b.N, func() {
		b.RunParallel(func(pb *testing.PB) {
			pub := clients[int(client.Add(1)-1)%len(clients)]
			for pb.Next() {
				i := next.Add(1)
				if err := pub.PublishGame(context.Background(), Game{ID: "g" + strconv.FormatInt(i, 10), Data: data[i%int64(len(data))]}); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// BenchmarkConsumeAck fetches games in batches of 100 and acknowledges each
// (AckSync), as the trainer does; the stream is filled before the timer
// starts.
func BenchmarkConsumeAck(b *testing.B) {
	benchConsume(b, func(ctx context.Context, c *Consumer, ds []*Delivery) error {
		for _, d := range ds {
			if err := d.Ack(ctx); err != nil {
				return err
			}
		}
		return nil
	})
}

// BenchmarkConsumeAckAll is BenchmarkConsumeAck with the acks of a batch
// in flight together (AckAll).
func BenchmarkConsumeAckAll(b *testing.B) {
	benchConsume(b, func(ctx context.Context, c *Consumer, ds []*Delivery) error { return AckAll(ctx, ds) })
}

func benchConsume(b *testing.B, ack func(context.Context, *Consumer, []*Delivery) error) {
	srv := startServer(b, ServerConfig{Dir: b.TempDir()})
	pub := connect(b, Options{URL: srv.URL(), Name: "w1"})
	sub := connect(b, Options{URL: srv.URL(), Name: "trainer"})
	data := benchGames(b)
	ctx := context.Background()
	for i := range b.N {
		if err := pub.PublishGame(ctx, Game{ID: "g" + strconv.Itoa(i), Data: data[i%len(data)]}); err != nil {
			b.Fatal(err)
		}
	}
	c, err := sub.Consumer(ctx, "trainer")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data[0])))
	timed(b, b.N, func() {
		got := 0
		for got < b.N {
			ds, err := c.Fetch(ctx, 100, time.Second)
			if err != nil {
				b.Fatal(err)
			}
			if len(ds) == 0 {
				b.Fatalf("nothing fetched after %d of %d games", got, b.N)
			}
			if err := ack(ctx, c, ds); err != nil {
				b.Fatal(err)
			}
			got += len(ds)
		}
	})
}

// BenchmarkCheckpoint10MB puts and gets a 10 MiB checkpoint, and reports
// the wall and CPU milliseconds of each.
func BenchmarkCheckpoint10MB(b *testing.B) {
	srv := startServer(b, ServerConfig{Dir: b.TempDir()})
	bus := connect(b, Options{URL: srv.URL()})
	blob := make([]byte, 10<<20)
	for i := range blob {
		blob[i] = byte(i * 7919 >> 3)
	}
	ctx := context.Background()
	b.SetBytes(int64(len(blob)))
	var put, get, putCPU, getCPU time.Duration
	b.ResetTimer()
	for i := range b.N {
		name := "gen-" + strconv.Itoa(i%4)
		start, cpu := time.Now(), cpuTime(b)
		if err := bus.PutCheckpoint(ctx, name, blob); err != nil {
			b.Fatal(err)
		}
		put += time.Since(start)
		putCPU += cpuTime(b) - cpu
		start, cpu = time.Now(), cpuTime(b)
		if _, err := bus.GetCheckpoint(ctx, name); err != nil {
			b.Fatal(err)
		}
		get += time.Since(start)
		getCPU += cpuTime(b) - cpu
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 / float64(b.N) }
	b.ReportMetric(ms(put), "put-ms")
	b.ReportMetric(ms(get), "get-ms")
	b.ReportMetric(ms(putCPU), "put-cpu-ms")
	b.ReportMetric(ms(getCPU), "get-cpu-ms")
}

// BenchmarkBestWatch measures SetBest to the watcher's receipt.
func BenchmarkBestWatch(b *testing.B) {
	srv := startServer(b, ServerConfig{Dir: b.TempDir()})
	trainer := connect(b, Options{URL: srv.URL(), Name: "trainer"})
	worker := connect(b, Options{URL: srv.URL(), Name: "w1"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ch, err := worker.WatchBest(ctx)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	cpu := cpuTime(b)
	for i := range b.N {
		if err := trainer.SetBest(ctx, Best{Name: "gen", Generation: i + 1}); err != nil {
			b.Fatal(err)
		}
		for best := range ch {
			if best.Generation == i+1 {
				break
			}
		}
	}
	b.ReportMetric(float64((cpuTime(b)-cpu).Microseconds())/float64(b.N), "cpu-us/op")
}
