package train_test

import (
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"

	"tabula/nn"
	"tabula/nn/train"
)

// Example trains a small Connect Four network on one repeated batch, saves a
// checkpoint and resumes from it.
func Example() {
	if err := train.UseBLAS(train.BLASTabula); err != nil { // once per process
		log.Fatal(err)
	}
	shape := nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}
	w, err := nn.NewWeights(nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16},
		shape, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		log.Fatal(err)
	}
	cfg := train.DefaultConfig()
	cfg.BatchSize = 4
	tr, err := train.New(cfg, w, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		log.Fatal(err)
	}
	defer tr.Close()

	rng := rand.New(rand.NewPCG(3, 3))
	b := train.Batch{
		Obs:    make([]float32, 4*2*6*7),
		Policy: make([]float32, 4*7),
		Value:  []float32{1, -1, 0, 1},
	}
	for i := range b.Obs {
		b.Obs[i] = float32(rng.IntN(2))
	}
	for i := range 4 {
		b.Policy[i*7+i] = 1 // example i should play column i
	}
	first, err := tr.Step(b)
	if err != nil {
		log.Fatal(err)
	}
	var last train.Losses
	for range 50 {
		if last, err = tr.Step(b); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("loss fell:", last.Total < first.Total/2)

	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "net.tbn")
	if err := nn.SaveCheckpoint(path, tr.Checkpoint("connect4", nil)); err != nil {
		log.Fatal(err)
	}
	ck, err := nn.LoadCheckpoint(path)
	if err != nil {
		log.Fatal(err)
	}
	resumed, err := train.Resume(cfg, ck, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		log.Fatal(err)
	}
	defer resumed.Close()
	fmt.Println("resumed at step", resumed.Steps())
	// Output:
	// loss fell: true
	// resumed at step 51
}
