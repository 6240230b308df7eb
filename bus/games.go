package bus

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Game is one finished self-play game on the bus.
type Game struct {
	// ID identifies the game uniquely in the run (e.g. worker name and a
	// sequence number): 1-128 printable ASCII characters without spaces. The
	// stream drops a republished ID within its duplicate window, and Seen
	// drops repeats after it.
	ID string
	// Worker that played it; empty means the publishing client's name.
	Worker string
	// Generation of the checkpoint it was played with (>= 0).
	Generation int
	// Data is the game's records in the replay format. The bus compresses
	// it on the wire and in the stream.
	Data []byte
}

// Message headers of a game.
const (
	hdrWorker     = "Tabula-Worker"
	hdrGeneration = "Tabula-Generation"
	hdrEncoding   = "Tabula-Encoding"
	hdrSize       = "Tabula-Size"
	encodingZstd  = "zstd"
)

// MaxGameBytes bounds a game's uncompressed Data.
const MaxGameBytes = 64 << 20

var (
	encoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))
	decoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(MaxGameBytes))
)

func validID(id string) error {
	if id == "" {
		return errors.New("game id is empty")
	}
	if len(id) > 128 {
		return fmt.Errorf("game id %.40q... is %d bytes long, want at most 128", id, len(id))
	}
	for i := 0; i < len(id); i++ {
		if id[i] <= ' ' || id[i] >= 0x7f {
			return fmt.Errorf("game id %q has byte %#x at %d; want printable ASCII without spaces", id, id[i], i)
		}
	}
	return nil
}

// check validates g and fills in the worker name.
func (b *Bus) check(g *Game) error {
	if err := validID(g.ID); err != nil {
		return fmt.Errorf("bus: publish: %w", err)
	}
	if g.Worker == "" {
		g.Worker = b.opt.Name
	}
	if !validName(g.Worker, 128) {
		return fmt.Errorf("bus: publish game %s: worker name %q must be 1-128 letters, digits, '-' or '_'", g.ID, g.Worker)
	}
	if g.Generation < 0 {
		return fmt.Errorf("bus: publish game %s: generation %d is negative", g.ID, g.Generation)
	}
	if len(g.Data) == 0 {
		return fmt.Errorf("bus: publish game %s: no data", g.ID)
	}
	if len(g.Data) > MaxGameBytes {
		return fmt.Errorf("bus: publish game %s: %d bytes of data, want at most %d", g.ID, len(g.Data), MaxGameBytes)
	}
	return nil
}

// PublishGame compresses g and publishes it to the run's stream with its ID
// as Nats-Msg-Id, and returns once the stream has stored it (its ack). When
// the server is away it retries until ctx ends: a game already stored is
// not stored again within the stream's duplicate window.
func (b *Bus) PublishGame(ctx context.Context, g Game) error {
	if err := b.check(&g); err != nil {
		return err
	}
	msg := &nats.Msg{Subject: b.subject, Header: nats.Header{}, Data: encoder.EncodeAll(g.Data, nil)}
	msg.Header.Set(nats.MsgIdHdr, g.ID)
	msg.Header.Set(hdrWorker, g.Worker)
	msg.Header.Set(hdrGeneration, strconv.Itoa(g.Generation))
	msg.Header.Set(hdrEncoding, encodingZstd)
	msg.Header.Set(hdrSize, strconv.Itoa(len(g.Data)))
	if limit := b.nc.MaxPayload(); limit > 0 && int64(len(msg.Data)) > limit-1024 {
		return fmt.Errorf("bus: publish game %s: %d bytes compressed, the server takes at most %d a message", g.ID, len(msg.Data), limit)
	}
	wait := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		// An attempt ends at its ack, after 5 s, or at a reconnect (the
		// request may have been lost with the old connection: send again).
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		stop := onSignal(b.reconnectSignal(), cancel)
		_, err := b.js.PublishMsg(actx, msg)
		stop()
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("bus: publish game %s: %w (last error: %v)", g.ID, ctx.Err(), err)
		}
		if errors.Is(err, nats.ErrConnectionClosed) || errors.Is(err, nats.ErrMaxPayload) || errors.Is(err, nats.ErrBadSubject) {
			return fmt.Errorf("bus: publish game %s: %w", g.ID, err)
		}
		if attempt == 1 || attempt%20 == 0 {
			b.log.Warn("bus: publish failed, retrying", "game", g.ID, "attempt", attempt, "err", err)
		}
		if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) {
			// The server is up but no stream answers: JetStream is still
			// recovering, or this is a fresh server. Make sure the stream
			// exists (a no-op when it does).
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = b.ensureStream(sctx)
			cancel()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("bus: publish game %s: %w (last error: %v)", g.ID, ctx.Err(), err)
		case <-b.reconnectSignal():
			wait = 50 * time.Millisecond
		case <-time.After(wait):
			wait = min(2*wait, 2*time.Second)
		}
	}
}

// onSignal calls f when sig closes, until stop is called.
func onSignal(sig <-chan struct{}, f func()) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-sig:
			f()
		case <-done:
		}
	}()
	return func() { close(done) }
}

// Consumer is a durable pull consumer of the run's games.
type Consumer struct {
	b       *Bus
	c       jetstream.Consumer
	durable string
	corrupt atomic.Int64
}

// Consumer creates (or finds, updating its AckWait and MaxAckPending) the
// durable pull consumer named durable on the run's games stream. It
// delivers every game in the stream not yet acknowledged by this durable,
// oldest first, and redelivers a game not acknowledged within
// Options.AckWait.
func (b *Bus) Consumer(ctx context.Context, durable string) (*Consumer, error) {
	if !validName(durable, 64) {
		return nil, fmt.Errorf("bus: consumer name %q must be 1-64 letters, digits, '-' or '_'", durable)
	}
	c, err := b.js.CreateOrUpdateConsumer(ctx, b.stream, jetstream.ConsumerConfig{
		Durable:       durable,
		Description:   "tabula trainer of run " + b.opt.Run,
		DeliverPolicy: jetstream.DeliverAllPolicy,
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       b.opt.AckWait,
		MaxAckPending: b.opt.MaxAckPending,
		MaxDeliver:    -1,
		FilterSubject: b.subject,
	})
	if err != nil {
		return nil, fmt.Errorf("bus: consumer %s on stream %s: %w", durable, b.stream, jsHint(err))
	}
	return &Consumer{b: b, c: c, durable: durable}, nil
}

// Delivery is one game delivered to a Consumer. Ack it once the game is
// stored; otherwise it is delivered again after Options.AckWait.
type Delivery struct {
	Game Game
	// Seq is the game's sequence number in the stream: the same on every
	// delivery of one message.
	Seq uint64
	// Delivered counts the deliveries of this message, 1 the first time.
	Delivered uint64
	// Published is when the stream stored the game.
	Published time.Time
	msg       jetstream.Msg
}

// Ack acknowledges the delivery and waits for the server to confirm it, so
// that a nil error means the game will not be delivered again to this
// consumer.
func (d *Delivery) Ack(ctx context.Context) error {
	if err := d.msg.DoubleAck(ctx); err != nil {
		return fmt.Errorf("bus: ack game %s (stream seq %d): %w", d.Game.ID, d.Seq, err)
	}
	return nil
}

// Nak asks for the game to be delivered again now rather than after
// AckWait (e.g. the trainer could not store it).
func (d *Delivery) Nak() error {
	if err := d.msg.Nak(); err != nil {
		return fmt.Errorf("bus: nak game %s (stream seq %d): %w", d.Game.ID, d.Seq, err)
	}
	return nil
}

// Fetch returns up to n games (1..10000), waiting up to wait (> 0) for
// the first. No games within wait is not an error: it returns none. A
// message that is not a well-formed game is terminated (never redelivered),
// logged and counted by Corrupt. An error (e.g. the server is away) leaves
// nothing acknowledged: call Fetch again.
func (c *Consumer) Fetch(ctx context.Context, n int, wait time.Duration) ([]*Delivery, error) {
	if n < 1 || n > 10_000 {
		return nil, fmt.Errorf("bus: fetch %d games, want 1..10000", n)
	}
	if wait <= 0 {
		return nil, fmt.Errorf("bus: fetch wait %v, want > 0", wait)
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
		wait = max(time.Until(d), time.Millisecond)
	}
	batch, err := c.c.Fetch(n, jetstream.FetchMaxWait(wait))
	if err != nil {
		return nil, fmt.Errorf("bus: fetch from %s: %w", c.durable, err)
	}
	var out []*Delivery
	for {
		select {
		case <-ctx.Done():
			// Hand the messages back for redelivery now.
			for _, d := range out {
				_ = d.msg.Nak()
			}
			go func() {
				for m := range batch.Messages() {
					_ = m.Nak()
				}
			}()
			return nil, fmt.Errorf("bus: fetch from %s: %w", c.durable, ctx.Err())
		case m, ok := <-batch.Messages():
			if !ok {
				if err := batch.Error(); err != nil && len(out) == 0 && !errors.Is(err, nats.ErrTimeout) {
					return nil, fmt.Errorf("bus: fetch from %s: %w", c.durable, err)
				}
				return out, nil
			}
			d, err := decodeDelivery(m)
			if err != nil {
				c.corrupt.Add(1)
				c.b.log.Error("bus: dropping a malformed game message", "consumer", c.durable, "err", err)
				_ = m.TermWithReason("tabula: " + err.Error())
				continue
			}
			out = append(out, d)
		}
	}
}

// Corrupt counts the malformed messages Fetch dropped.
func (c *Consumer) Corrupt() int64 { return c.corrupt.Load() }

// Pending returns how many games wait in the stream for this consumer, not
// counting those delivered and not yet acknowledged.
func (c *Consumer) Pending(ctx context.Context) (uint64, error) {
	info, err := c.c.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("bus: consumer %s: %w", c.durable, err)
	}
	return info.NumPending, nil
}

func decodeDelivery(m jetstream.Msg) (*Delivery, error) {
	meta, err := m.Metadata()
	if err != nil {
		return nil, fmt.Errorf("no JetStream metadata: %w", err)
	}
	h := m.Headers()
	d := &Delivery{Seq: meta.Sequence.Stream, Delivered: meta.NumDelivered, Published: meta.Timestamp, msg: m}
	fail := func(format string, args ...any) (*Delivery, error) {
		return nil, fmt.Errorf("stream seq %d (game %q): %s", d.Seq, h.Get(nats.MsgIdHdr), fmt.Sprintf(format, args...))
	}
	d.Game.ID = h.Get(nats.MsgIdHdr)
	if err := validID(d.Game.ID); err != nil {
		return fail("%v", err)
	}
	d.Game.Worker = h.Get(hdrWorker)
	if !validName(d.Game.Worker, 128) {
		return fail("worker name %q is not valid", d.Game.Worker)
	}
	d.Game.Generation, err = strconv.Atoi(h.Get(hdrGeneration))
	if err != nil || d.Game.Generation < 0 {
		return fail("generation %q is not a number >= 0", h.Get(hdrGeneration))
	}
	if enc := h.Get(hdrEncoding); enc != encodingZstd {
		return fail("encoding %q, this program reads %q", enc, encodingZstd)
	}
	size, err := strconv.Atoi(h.Get(hdrSize))
	if err != nil || size < 1 || size > MaxGameBytes {
		return fail("size %q out of range", h.Get(hdrSize))
	}
	d.Game.Data, err = decoder.DecodeAll(m.Data(), make([]byte, 0, size))
	if err != nil {
		return fail("decompressing: %v", err)
	}
	if len(d.Game.Data) != size {
		return fail("%d bytes after decompressing, the header says %d", len(d.Game.Data), size)
	}
	return d, nil
}

// AckAll acknowledges deliveries with their acks in flight together (up
// to 64 at a time), each confirmed by the server as with Delivery.Ack. It
// tries them all and returns their errors joined.
func AckAll(ctx context.Context, ds []*Delivery) error {
	const inFlight = 64
	errs := make([]error, len(ds))
	sem := make(chan struct{}, inFlight)
	var wg sync.WaitGroup
	for i, d := range ds {
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			errs[i] = d.Ack(ctx)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Oldest returns the time the stream stored its oldest game, and false
// when it holds none. A game stored before it can no longer be delivered
// (the stream's MaxAge or MaxBytes discarded it), which bounds how long the
// trainer must remember game ids to drop repeats.
func (b *Bus) Oldest(ctx context.Context) (time.Time, bool, error) {
	s, err := b.js.Stream(ctx, b.stream)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("bus: games stream: %w", err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("bus: games stream: %w", err)
	}
	if info.State.Msgs == 0 {
		return time.Time{}, false, nil
	}
	return info.State.FirstTime, true, nil
}
