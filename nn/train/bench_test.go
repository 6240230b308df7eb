package train

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"tabula/nn"
)

// benchNet is a Connect Four net of 64 filters and 4 residual blocks, on
// 2x6x7 inputs with 7 actions (configs/connect4.yaml has 32 filters; 64 is
// kept so that the figures in docs/benchmarks.md compare).
var (
	benchShape = nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}
	benchNet   = nn.Config{Filters: 64, Blocks: 4, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64}
)

// benchTrainer returns a trainer of the benchmark net with Adam at batch
// size batch on engine, and a batch of random examples (with legality
// masks) for it.
func benchTrainer(b *testing.B, engine string, batch int) (*Trainer, Batch) {
	return benchTrainerNet(b, benchNet, engine, batch)
}

// benchTrainerNet is benchTrainer for the net net.
func benchTrainerNet(b *testing.B, net nn.Config, engine string, batch int) (*Trainer, Batch) {
	b.Helper()
	w, err := nn.NewWeights(net, benchShape, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.BatchSize, cfg.Engine = batch, engine
	tr, err := New(cfg, w, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { tr.Close() })
	d := newDataset(benchShape, batch, rand.New(rand.NewPCG(5, 6)), true)
	return tr, d.batch(benchShape, 0, batch)
}

// BenchmarkTrainStep measures training samples per second (wall clock) and
// per CPU-second of the process for benchNet with Adam at batch 256: the
// gorgonia engine with each BLAS, and the direct engine at batch 128, 256
// and 512; and the direct engine at 256 for the smaller nets of
// Connect Four: 48 filters and 32 (configs/connect4.yaml's).
func BenchmarkTrainStep(b *testing.B) {
	type run struct{ engine, blas string }
	for _, r := range []run{{EngineGorgonia, BLASGonum}, {EngineGorgonia, BLASTabula}, {EngineDirect, ""}} {
		batches := []int{256}
		if r.engine == EngineDirect {
			batches = []int{128, 256, 512}
		}
		for _, batch := range batches {
			name := fmt.Sprintf("engine=%s/batch=%d", r.engine, batch)
			if r.blas != "" {
				name = fmt.Sprintf("engine=%s/blas=%s/batch=%d", r.engine, r.blas, batch)
			}
			b.Run(name, func(b *testing.B) {
				if r.blas != "" {
					if err := UseBLAS(r.blas); err != nil {
						b.Fatal(err)
					}
					defer UseBLAS(BLASGonum)
				}
				tr, batch := benchTrainer(b, r.engine, batch)
				benchSteps(b, tr, batch)
			})
		}
	}
	for _, filters := range []int{32, 48} {
		b.Run(fmt.Sprintf("engine=direct/filters=%d/batch=256", filters), func(b *testing.B) {
			net := benchNet
			net.Filters = filters
			tr, batch := benchTrainerNet(b, net, EngineDirect, 256)
			benchSteps(b, tr, batch)
		})
	}
}

// BenchmarkTrainEngines alternates steps of the gorgonia engine (our SGEMM)
// and the direct engine on the same batch, and reports each engine's samples
// per CPU-second of the process (measured around each step; gorgonia runs
// parts of its work on other goroutines, so per-thread time would miss it)
// and their ratio: on a shared machine both see the same conditions, so the
// ratio is steadier than two separate runs.
func BenchmarkTrainEngines(b *testing.B) {
	if err := UseBLAS(BLASTabula); err != nil {
		b.Fatal(err)
	}
	defer UseBLAS(BLASGonum)
	const batch = 256
	graph, bt := benchTrainer(b, EngineGorgonia, batch)
	direct, _ := benchTrainer(b, EngineDirect, batch)
	var cpu [2]float64
	step := func(i int, tr *Trainer) {
		c0 := processCPUSeconds()
		if _, err := tr.Step(bt); err != nil {
			b.Fatal(err)
		}
		cpu[i] += processCPUSeconds() - c0
	}
	step(0, graph) // warm up
	step(1, direct)
	cpu = [2]float64{}
	for b.Loop() {
		step(0, graph)
		step(1, direct)
	}
	samples := float64(b.N * batch)
	if cpu[0] > 0 && cpu[1] > 0 {
		b.ReportMetric(samples/cpu[0], "gorgonia-samples/cpu-s")
		b.ReportMetric(samples/cpu[1], "direct-samples/cpu-s")
		b.ReportMetric(cpu[0]/cpu[1], "x-direct")
	}
}

// BenchmarkTrainStepAux measures a training step at batch 256 of the go7
// network (64 filters, 5 blocks, 7x7 Go input) plain, with the ownership and
// score heads, with the heads and global pooling, with the opponent-policy
// head, and with squeeze-and-excitation, on each engine: the training cost
// of the auxiliary targets and of the tower's additions.
func BenchmarkTrainStepAux(b *testing.B) {
	shape := nn.Shape{Planes: 9, Height: 7, Width: 7, Actions: 50}
	if err := UseBLAS(BLASTabula); err != nil {
		b.Fatal(err)
	}
	defer UseBLAS(BLASGonum)
	for _, engine := range []string{EngineDirect, EngineGorgonia} {
		for _, tc := range []struct {
			name                 string
			heads, pool, opp, se bool
		}{{"plain", false, false, false, false}, {"heads", true, false, false, false}, {"heads+pool", true, true, false, false},
			{"opp", false, false, true, false}, {"se", false, false, false, true}} {
			b.Run("engine="+engine+"/"+tc.name, func(b *testing.B) {
				benchAuxSteps(b, engine, shape, nn.Config{Filters: 64, Blocks: 5, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64,
					Ownership: tc.heads, Score: tc.heads, GlobalPooling: tc.pool, OpponentPolicy: tc.opp, SqueezeExcite: tc.se})
			})
		}
	}
}

// benchAuxSteps runs benchSteps for network cfg on engine, with a batch that
// carries targets for every auxiliary head (ownership, score, opponent
// policy).
func benchAuxSteps(b *testing.B, engine string, shape nn.Shape, cfg nn.Config) {
	w, err := nn.NewWeights(cfg, shape, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		b.Fatal(err)
	}
	tcfg := DefaultConfig()
	tcfg.Engine = engine
	tr, err := New(tcfg, w, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		b.Fatal(err)
	}
	defer tr.Close()
	d := newDataset(shape, tcfg.BatchSize, rand.New(rand.NewPCG(5, 6)), true)
	batch := d.batch(shape, 0, tcfg.BatchSize)
	hw := shape.Height * shape.Width
	batch.Ownership = make([]float32, tcfg.BatchSize*hw)
	batch.Score = make([]float32, tcfg.BatchSize)
	batch.AuxWeight = make([]float32, tcfg.BatchSize)
	for i := range batch.AuxWeight {
		batch.AuxWeight[i] = 1
		batch.Score[i] = float32(i%20) - 10
		for p := 0; p < hw; p++ {
			batch.Ownership[i*hw+p] = float32((i+p)%3 - 1)
		}
	}
	batch.OppPolicy = make([]float32, tcfg.BatchSize*shape.Actions)
	for i := 0; i < tcfg.BatchSize; i++ {
		batch.OppPolicy[i*shape.Actions+(i*7)%shape.Actions] = 1
	}
	benchSteps(b, tr, batch)
}

// benchSteps times tr's steps on batch after one warm-up step and reports
// samples per second and per CPU-second of the process.
func benchSteps(b *testing.B, tr *Trainer, batch Batch) {
	if _, err := tr.Step(batch); err != nil { // warm up
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := processCPUSeconds()
	b.ResetTimer()
	for b.Loop() {
		if _, err := tr.Step(batch); err != nil {
			b.Fatal(err)
		}
	}
	samples := float64(b.N * len(batch.Value))
	b.ReportMetric(samples/b.Elapsed().Seconds(), "samples/s")
	if cpu := processCPUSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(samples/cpu, "samples/cpu-s")
	}
}

// BenchmarkTrainStepGo9 measures a training step of configs/go9.yaml's
// network (32 filters, 4 blocks, ownership and score heads, global pooling;
// 9x9 Go input) at batch 256 on the direct engine: the trainer's cost per
// step in a Go 9x9 run.
//
//	go test ./nn/train -run '^$' -bench TrainStepGo9 -benchtime 30x -cpu 1
func BenchmarkTrainStepGo9(b *testing.B) {
	shape := nn.Shape{Planes: 9, Height: 9, Width: 9, Actions: 82} // gogame.NumPlanes
	benchAuxSteps(b, EngineDirect, shape, nn.Config{Filters: 32, Blocks: 4, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 64,
		Ownership: true, Score: true, GlobalPooling: true})
}
