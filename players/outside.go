package players

import "fmt"

// engineClient is the client of an outside engine process (*gtp.Client or
// *uci.Client).
type engineClient interface {
	comparable
	Kill()
	Close() error
	StderrTail() string
}

// outside holds what the players of outside engines share: the player's
// name, the client of its running engine (nil before the first move and
// after a forfeit) and the moves given to Sync.
type outside[C engineClient] struct {
	name    string
	client  C
	history []int // set by Sync
	synced  bool
}

func (p *outside[C]) Name() string { return p.name }

// Sync records the game so far; the player's ChooseAction tells the engine.
func (p *outside[C]) Sync(actions []int) {
	p.history = append(p.history[:0], actions...)
	p.synced = true
}

// Close stops the engine.
func (p *outside[C]) Close() error {
	var none C
	if p.client == none {
		return nil
	}
	err := p.client.Close()
	p.client = none
	return err
}

// forfeit stops the engine and returns a Forfeit with its last stderr lines.
func (p *outside[C]) forfeit(format string, args ...any) error {
	return &Forfeit{Reason: fmt.Sprintf(format, args...), Stderr: p.kill()}
}

// kill stops the engine, if one runs, and returns its last stderr lines.
func (p *outside[C]) kill() string {
	var none C
	if p.client == none {
		return ""
	}
	p.client.Kill()
	tail := p.client.StderrTail()
	p.client = none
	return tail
}
