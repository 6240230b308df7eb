package players

import (
	"errors"
	"fmt"

	"tabula/games"
	"tabula/nn"
)

// GameOf returns the game that the checkpoints of specs' net players were
// trained for, so that a command can leave out its game when a network is
// playing. It is an error when no spec names a checkpoint, when one cannot
// be read, or when two are for different games.
func GameOf(specs []Spec) (games.Game, error) {
	var game, from string
	for _, s := range specs {
		if s.Kind != "net" || (s.Str("path", "") == "" && s.Str("model", "") == "") {
			continue
		}
		path, err := netPath(s)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", s, err)
		}
		ck, err := nn.LoadCheckpoint(path)
		if err != nil {
			return nil, fmt.Errorf("player %s: %w", s, err)
		}
		switch {
		case game == "":
			game, from = ck.Game, path
		case ck.Game != game:
			return nil, fmt.Errorf("checkpoints for two games: %s is for %s, %s for %s; name the game", from, game, path, ck.Game)
		}
	}
	if game == "" {
		return nil, errors.New("no net player names a checkpoint to take the game from")
	}
	g, err := games.New(game)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", from, err)
	}
	return g, nil
}
