package main

import (
	"flag"

	"tabula/games"
	"tabula/players"
)

// gameFor returns the game a verb plays: the one its -game flag names when
// the flag is given, else the game of spec's checkpoint when spec is a net
// player, else the flag's default.
func gameFor(fs *flag.FlagSet, spec players.Spec) (games.Game, error) {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "game" })
	if !given && spec.Kind == "net" {
		return players.GameOf([]players.Spec{spec})
	}
	return games.New(fs.Lookup("game").Value.String())
}
