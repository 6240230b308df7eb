package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"tabula/games"
	"tabula/replay"
)

// busGame is one finished self-play game on the bus: a unique id (the
// stream deduplicates by it, and so does the trainer), the worker that
// played it, the best-network generation it was played with, and its
// examples as the bytes of a replay chunk, compressed (encodeGame).
type busGame struct {
	ID         string
	Worker     string
	Generation int
	Data       []byte
}

// gamePublisher puts finished games on the bus.
type gamePublisher interface {
	publish(ctx context.Context, g busGame) error
}

// gameFeed hands the trainer the games on the bus, each to be acknowledged
// once it is safely in the replay folder; unacknowledged ones come again.
type gameFeed interface {
	fetch(ctx context.Context, max int, wait time.Duration) ([]feedItem, error)
}

// feedItem is one delivery of a game.
type feedItem struct {
	game busGame
	ack  func(context.Context) error
}

// encodeGame turns a game's examples into a bus record's data: the bytes
// of a replay chunk (checksummed). The bus compresses them on the wire and
// in the stream.
func encodeGame(g games.Game, examples []replay.Example) ([]byte, error) {
	return replay.Encode(g, examples)
}

// decodeGame reverses encodeGame and verifies the examples against g.
func decodeGame(g games.Game, data []byte) ([]replay.Example, error) {
	return replay.Decode(g, data)
}

// newGameID returns a random 128-bit id in hex: unique across processes and
// machines without coordination, and never reused by a restarted worker
// (which a seeded or counted id would be).
func newGameID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// errStale stops a round of self-play whose network has fallen more than
// bus.max_stale_generations behind the best: its games would only be
// dropped.
var errStale = errors.New("the network playing is stale")

// busSink publishes every finished game on the bus, unless the network that
// played it has fallen too far behind the best. With ahead 0, put returns
// once the stream has acknowledged the game. With ahead > 0 (a self-play
// worker process: cmd/selfplay), put hands the game to a goroutine of its
// own (at most publishConcurrency publish at once) and returns,
// so that the worker (and every game it has in flight) does not wait for
// the ack, a round trip over the network link; at most ahead games wait in
// the queue, and put blocks beyond that. The trainer's own self-play keeps
// ahead 0: there, with self-play and training sharing the cores, not
// waiting moved ~15% of the training steps to ~2% more positions (docs/
// benchmarks.md, "The bus"). flush waits until every
// queued game is stored (or has failed) and returns the first error; a
// publish error also fails the next put, which stops the round. The
// "game published" debug line means the stream acknowledged the game.
// flush must not run concurrently with put (generate calls it once, after
// its workers stop).
type busSink struct {
	g          games.Game
	pub        gamePublisher
	worker     string
	generation int        // of the network playing
	best       func() int // the current best generation
	maxStale   int
	// timeout bounds one publish, the bus's retries while the server is
	// away included (the trainer's own self-play, whose server is
	// in-process: a failure there is an error to report); 0 retries until
	// ctx ends (a worker waiting out a trainer restart).
	timeout time.Duration
	log     *slog.Logger
	// ahead: how many finished games may wait to be published (0: put
	// waits for each ack).
	ahead int

	published, stale, lost atomic.Int64

	once    sync.Once
	held    chan struct{}  // a token per game queued or publishing (ahead + publishConcurrency)
	sending chan struct{}  // a token per publish in flight (publishConcurrency)
	pending sync.WaitGroup // queued games not yet published or failed

	mu      sync.Mutex
	err     error // the first publish error
	graceAt time.Time
}

// queuedGame is a game waiting to be published, with the context of the
// put that queued it.
type queuedGame struct {
	ctx      context.Context
	game     busGame
	examples int
}

// publishAhead is how many finished games a worker process's busSink holds
// waiting for the bus before put blocks; publishConcurrency how many a
// busSink publishes at once.
const (
	publishAhead       = 32
	publishConcurrency = 4
)

func (s *busSink) put(ctx context.Context, examples []replay.Example, _ int) error {
	if cur := s.best(); cur-s.generation > s.maxStale {
		s.stale.Add(1)
		return fmt.Errorf("%w: generation %d, best %d, bus.max_stale_generations %d", errStale, s.generation, cur, s.maxStale)
	}
	if err := s.failed(); err != nil {
		return err
	}
	data, err := encodeGame(s.g, examples)
	if err != nil {
		return fmt.Errorf("self-play record: %w", err)
	}
	q := queuedGame{ctx: ctx, game: busGame{ID: newGameID(), Worker: s.worker, Generation: s.generation, Data: data}, examples: len(examples)}
	if s.ahead <= 0 {
		s.publishOne(q)
		return s.failed()
	}
	s.once.Do(func() {
		s.held = make(chan struct{}, s.ahead+publishConcurrency)
		s.sending = make(chan struct{}, publishConcurrency)
	})
	s.held <- struct{}{} // blocks while ahead games wait beside those publishing
	s.pending.Add(1)
	go func() {
		s.sending <- struct{}{}
		s.publishOne(q)
		<-s.sending
		<-s.held
		s.pending.Done()
	}()
	return nil
}

// publishOne publishes one queued game, unless an earlier one failed (the
// round is stopping: the game is lost, as games in flight are).
func (s *busSink) publishOne(q queuedGame) {
	if s.failed() != nil {
		s.lost.Add(1)
		return
	}
	pctx, cancel := s.publishContext(q.ctx)
	err := s.pub.publish(pctx, q.game)
	cancel()
	if err != nil {
		s.lost.Add(1)
		s.mu.Lock()
		if s.err == nil {
			s.err = fmt.Errorf("publishing a game: %w", err)
		}
		s.mu.Unlock()
		return
	}
	s.published.Add(1)
	s.log.Debug("game published", "id", q.game.ID, "worker", s.worker, "generation", s.generation,
		"examples", q.examples, "bytes", len(q.game.Data))
}

// publishContext bounds one publish: by timeout, when set, and once ctx
// ends (the process stopping, Ctrl-C) by publishGrace after the first
// publish that saw it end, for every game still queued together: a
// finished game is worth a short wait, a queue of them no more than one.
func (s *busSink) publishContext(ctx context.Context) (context.Context, context.CancelFunc) {
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if s.timeout > 0 {
		pctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	}
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		if s.graceAt.IsZero() {
			s.graceAt = time.Now().Add(publishGrace)
		}
		at := s.graceAt
		s.mu.Unlock()
		time.Sleep(time.Until(at))
		cancel() // a no-op when the publish is over
	})
	return pctx, func() {
		stop()
		cancel()
	}
}

// failed returns the first publish error, if any.
func (s *busSink) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// flush waits for every queued game and returns the first publish error.
func (s *busSink) flush() error {
	s.pending.Wait()
	if n := s.lost.Load(); n > 0 {
		s.log.Warn("games not published", "games", n, "worker", s.worker, "err", s.failed())
	}
	return s.failed()
}

// publishGrace is how long games finished as their process stops may still
// take to publish.
const publishGrace = 3 * time.Second
