package pipeline

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
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
// played it has fallen too far behind the best.
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

	published, stale atomic.Int64
}

func (s *busSink) put(ctx context.Context, examples []replay.Example, _ int) error {
	if cur := s.best(); cur-s.generation > s.maxStale {
		s.stale.Add(1)
		return fmt.Errorf("%w: generation %d, best %d, bus.max_stale_generations %d", errStale, s.generation, cur, s.maxStale)
	}
	data, err := encodeGame(s.g, examples)
	if err != nil {
		return fmt.Errorf("self-play record: %w", err)
	}
	game := busGame{ID: newGameID(), Worker: s.worker, Generation: s.generation, Data: data}
	// A finished game is worth a short wait when the process is stopping
	// (Ctrl-C): publishing it gets publishGrace after ctx ends.
	pctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	if s.timeout > 0 {
		pctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), s.timeout)
	}
	defer cancel()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-done:
		case <-ctx.Done():
			select {
			case <-done:
			case <-time.After(publishGrace):
				cancel()
			}
		}
	}()
	if err := s.pub.publish(pctx, game); err != nil {
		return fmt.Errorf("publishing a game: %w", err)
	}
	s.published.Add(1)
	s.log.Debug("game published", "id", game.ID, "worker", s.worker, "generation", s.generation,
		"examples", len(examples), "bytes", len(data))
	return nil
}

func (s *busSink) flush() error { return nil }

// publishGrace is how long a game finished as its process stops may still
// take to publish.
const publishGrace = 3 * time.Second
