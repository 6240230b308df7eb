package mcts_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"tabula/games"
	_ "tabula/games/connect4"
	"tabula/mcts"
)

// A search of a Connect Four position where the first player wins at once in
// column 1: the solver proves it, so the value is exact.
func ExampleSearch() {
	g, _ := games.New("connect4")
	s, _, _ := games.ParseAndReplay(g, "121212")
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 400
	cfg.DirichletEpsilon = 0 // no noise: match play
	cfg.TemperatureMoves = 0
	search, err := mcts.NewSearch(cfg, mcts.UniformEvaluator{}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := search.Run(context.Background(), s)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("play column %d, value %.2f\n", r.Action+1, r.Value)
	// Output: play column 1, value 1.00
}

// Self-play of four games, two in flight, turned into training examples.
func ExampleSelfPlay() {
	g, _ := games.New("connect4")
	cfg := mcts.DefaultConfig()
	cfg.Simulations = 50
	cfg.GamesInFlight = 2
	cfg.BatchSize = 4
	sp, err := mcts.NewSelfPlay(cfg, g, mcts.UniformEvaluator{}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		fmt.Println(err)
		return
	}
	played, examples := 0, 0
	err = sp.Run(context.Background(), 4, func(r mcts.GameRecord) error {
		played++
		return r.Examples(g, func(s games.State, pi []float32, z float32) error {
			examples++ // a pipeline would store (observation of s, pi, z)
			return nil
		})
	})
	fmt.Println(played, "games, with examples:", examples > 0, err)
	// Output: 4 games, with examples: true <nil>
}
