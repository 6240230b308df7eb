package train

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/nn"
)

// tinyShape is Connect Four's: 2 planes of 6x7, 7 actions.
var tinyShape = nn.Shape{Planes: 2, Height: 6, Width: 7, Actions: 7}

func tinyWeights(t testing.TB, seed uint64) *nn.Weights {
	t.Helper()
	cfg := nn.Config{Filters: 8, Blocks: 1, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16}
	w, err := nn.NewWeights(cfg, tinyShape, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// dataset is a fixed set of random boards with random target policies
// (peaked on one legal move) and values.
type dataset struct {
	n                         int
	obs, policy, value, legal []float32
	best                      []int // argmax of each target policy
}

func newDataset(shape nn.Shape, n int, rng *rand.Rand, withMask bool) *dataset {
	cells := shape.Planes * shape.Height * shape.Width
	d := &dataset{n: n, obs: make([]float32, n*cells), policy: make([]float32, n*shape.Actions),
		value: make([]float32, n), best: make([]int, n)}
	if withMask {
		d.legal = make([]float32, n*shape.Actions)
	}
	hw := shape.Height * shape.Width
	for i := range n {
		for c := range hw { // each cell empty, mine or theirs
			switch rng.IntN(3) {
			case 1:
				d.obs[i*cells+c] = 1
			case 2:
				d.obs[i*cells+hw+c] = 1
			}
		}
		pol := d.policy[i*shape.Actions : (i+1)*shape.Actions]
		var legal []int
		for a := range shape.Actions {
			if !withMask || rng.IntN(4) != 0 {
				legal = append(legal, a)
				if withMask {
					d.legal[i*shape.Actions+a] = 1
				}
			}
		}
		if len(legal) == 0 {
			legal = []int{0}
			if withMask {
				d.legal[i*shape.Actions] = 1
			}
		}
		best := legal[rng.IntN(len(legal))]
		var sum float32
		for _, a := range legal {
			pol[a] = 0.2 * rng.Float32()
			sum += pol[a]
		}
		pol[best] += 1
		sum += 1
		for _, a := range legal {
			pol[a] /= sum
		}
		d.best[i] = best
		d.value[i] = float32(rng.IntN(3) - 1)
	}
	return d
}

// batch returns examples [i, i+b).
func (d *dataset) batch(shape nn.Shape, i, b int) Batch {
	cells := shape.Planes * shape.Height * shape.Width
	bt := Batch{Obs: d.obs[i*cells : (i+b)*cells], Policy: d.policy[i*shape.Actions : (i+b)*shape.Actions],
		Value: d.value[i : i+b]}
	if d.legal != nil {
		bt.Legal = d.legal[i*shape.Actions : (i+b)*shape.Actions]
	}
	return bt
}

func TestTrainingLearnsFixedDataset(t *testing.T) {
	for _, opt := range []string{"adam", "sgd"} {
		t.Run(opt, func(t *testing.T) {
			w := tinyWeights(t, 7)
			cfg := DefaultConfig()
			cfg.BatchSize = 32
			cfg.Optimizer = opt
			if opt == "sgd" {
				cfg.LearningRate = 0.05
			} else {
				cfg.LearningRate = 0.01
			}
			cfg.WeightDecay = 1e-4
			tr, err := New(cfg, w, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			defer tr.Close()
			d := newDataset(tinyShape, 32, rand.New(rand.NewPCG(3, 4)), false)
			b := d.batch(tinyShape, 0, 32)
			first, err := tr.Step(b)
			if err != nil {
				t.Fatal(err)
			}
			var last Losses
			for range 200 {
				if last, err = tr.Step(b); err != nil {
					t.Fatal(err)
				}
			}
			t.Logf("%s: first %+v last %+v", opt, first, last)
			if !(last.Total < 0.5*first.Total) {
				t.Errorf("total loss %v -> %v, want it at least halved", first.Total, last.Total)
			}
			if math.Abs(last.Total-(last.Value+last.Policy+last.L2)) > 1e-9 {
				t.Errorf("total %v != value+policy+l2 %v", last.Total, last.Value+last.Policy+last.L2)
			}
			if last.L2 <= 0 {
				t.Errorf("L2 = %v, want > 0 with weight decay", last.L2)
			}
			logits, _ := evalForward(t, w, d.obs, 32)
			match := 0
			for i := range 32 {
				if argmax(logits[i*7:(i+1)*7]) == d.best[i] {
					match++
				}
			}
			if match < 28 {
				t.Errorf("argmax matches target on %d of 32 examples, want at least 28", match)
			}
		})
	}
}

func argmax(x []float32) int {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return best
}

// evalForward runs gorgonia's inference-mode forward pass (running
// statistics) over batch positions.
func evalForward(t testing.TB, w *nn.Weights, obs []float32, batch int) (logits, values []float32) {
	t.Helper()
	inf, err := newInference(w, batch)
	if err != nil {
		t.Fatal(err)
	}
	defer inf.Close()
	logits, values, err = inf.Forward(obs)
	if err != nil {
		t.Fatal(err)
	}
	return logits, values
}

func newTrainer(t testing.TB, cfg Config, w *nn.Weights) *Trainer {
	t.Helper()
	tr, err := New(cfg, w, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// TestLossFormula recomputes the loss of a step from the logits of that
// step's forward pass and a known value: mean (z-v)^2, mean -pi^T log
// softmax over legal moves, and c*||theta||^2 over conv and dense weights
// only. (The value node's memory is reused by the machine after the forward
// pass, so the value head is set to output v = tanh(b) for every position.)
func TestLossFormula(t *testing.T) {
	for _, withMask := range []bool{false, true} {
		w := tinyWeights(t, 11)
		clear(w.ValueFC2.W)
		w.ValueFC2.B[0] = float32(math.Atanh(0.5))
		v := math.Tanh(float64(w.ValueFC2.B[0]))
		cfg := DefaultConfig()
		cfg.BatchSize = 16
		cfg.WeightDecay = 3e-3
		var l2 float64
		for _, ts := range w.Tensors() {
			if len(ts.Shape) >= 2 { // conv and dense weight matrices
				for _, x := range ts.Data {
					l2 += float64(x) * float64(x)
				}
			}
		}
		tr := newTrainer(t, cfg, w)
		d := newDataset(tinyShape, 16, rand.New(rand.NewPCG(5, 6)), withMask)
		got, err := tr.Step(d.batch(tinyShape, 0, 16))
		if err != nil {
			t.Fatal(err)
		}
		logits := tr.lastLogits()
		var vl, pl float64
		A := tinyShape.Actions
		for i := range 16 {
			dv := float64(d.value[i]) - v
			vl += dv * dv
			maxL := math.Inf(-1)
			for a := range A {
				if d.legal == nil || d.legal[i*A+a] == 1 {
					maxL = math.Max(maxL, float64(logits[i*A+a]))
				}
			}
			var z float64
			for a := range A {
				if d.legal == nil || d.legal[i*A+a] == 1 {
					z += math.Exp(float64(logits[i*A+a]) - maxL)
				}
			}
			for a := range A {
				if p := float64(d.policy[i*A+a]); p > 0 {
					pl -= p * (float64(logits[i*A+a]) - maxL - math.Log(z))
				}
			}
		}
		want := Losses{Value: vl / 16, Policy: pl / 16, L2: cfg.WeightDecay * l2}
		want.Total = want.Value + want.Policy + want.L2
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"value", got.Value, want.Value}, {"policy", got.Policy, want.Policy}, {"l2", got.L2, want.L2}, {"total", got.Total, want.Total}} {
			if math.Abs(c.got-c.want) > 1e-5*math.Max(1, math.Abs(c.want)) {
				t.Errorf("mask %v: %s loss %v, want %v", withMask, c.name, c.got, c.want)
			}
		}
	}
}

// TestMaskedMoveGetsNoProbability: an action illegal in every example gets
// probability 0 in the loss, so its policy bias receives no gradient and is
// left exactly as it was, while without the mask it moves.
func TestMaskedMoveGetsNoProbability(t *testing.T) {
	d := newDataset(tinyShape, 16, rand.New(rand.NewPCG(7, 8)), true)
	const banned = 3
	A := tinyShape.Actions
	for i := range 16 {
		row := d.policy[i*A : (i+1)*A]
		d.legal[i*A+banned] = 0
		row[banned] = 0
		if d.best[i] == banned { // keep a legal target
			d.legal[i*A] = 1
			row[0] = 1
			d.best[i] = 0
		}
		var s float32
		for a := range A {
			if d.legal[i*A+a] == 0 {
				row[a] = 0
			}
			s += row[a]
		}
		for a := range A {
			row[a] /= s
		}
	}
	for _, masked := range []bool{true, false} {
		w := tinyWeights(t, 12)
		before := w.PolicyFC.B[banned]
		cfg := DefaultConfig()
		cfg.BatchSize, cfg.Optimizer, cfg.Momentum, cfg.LearningRate = 16, "sgd", 0, 0.1
		tr := newTrainer(t, cfg, w)
		b := d.batch(tinyShape, 0, 16)
		if !masked {
			b.Legal = nil
		}
		for range 5 {
			if _, err := tr.Step(b); err != nil {
				t.Fatal(err)
			}
		}
		changed := w.PolicyFC.B[banned] != before
		if changed == masked {
			t.Errorf("masked %v: bias of the illegal move %v -> %v", masked, before, w.PolicyFC.B[banned])
		}
		if masked {
			// And the probability the loss gives it is exactly 0.
			logits := tr.lastLogits()
			for i := range 16 {
				row := make([]float64, A)
				for a := range A {
					row[a] = float64(logits[i*A+a]) + float64(1-d.legal[i*A+a])*-1e9
				}
				if p := softmax(row)[banned]; p != 0 {
					t.Fatalf("example %d: illegal move probability %v", i, p)
				}
			}
		}
	}
}

func softmax(x []float64) []float64 {
	m := math.Inf(-1)
	for _, v := range x {
		m = math.Max(m, v)
	}
	out := make([]float64, len(x))
	var s float64
	for i, v := range x {
		out[i] = math.Exp(v - m)
		s += out[i]
	}
	for i := range out {
		out[i] /= s
	}
	return out
}

// TestRunningStatsFollowTraining checks the running-statistics rule on the
// stem, whose input is the observation itself: after one step from mean 0
// and variance 1, mean = m*batchMean and var = m*unbiasedBatchVar + (1-m),
// with the batch statistics of the stem convolution computed here directly.
func TestRunningStatsFollowTraining(t *testing.T) {
	w := tinyWeights(t, 13)
	cfg := DefaultConfig()
	cfg.BatchSize, cfg.BNMomentum = 16, 0.25
	s := tinyShape
	d := newDataset(s, 16, rand.New(rand.NewPCG(9, 10)), false)
	stem := append([]float32(nil), w.Stem.W...) // the weights the first forward pass uses
	tr := newTrainer(t, cfg, w)
	if _, err := tr.Step(d.batch(s, 0, 16)); err != nil {
		t.Fatal(err)
	}
	hw, n := s.Height*s.Width, float64(16*s.Height*s.Width)
	for c := range w.Stem.Out {
		var outs []float64
		for e := range 16 {
			for y := range s.Height {
				for x := range s.Width {
					var acc float64
					for p := range s.Planes {
						for ky := range 3 {
							for kx := range 3 {
								yy, xx := y+ky-1, x+kx-1
								if yy < 0 || yy >= s.Height || xx < 0 || xx >= s.Width {
									continue
								}
								acc += float64(stem[((c*s.Planes+p)*3+ky)*3+kx]) *
									float64(d.obs[(e*s.Planes+p)*hw+yy*s.Width+xx])
							}
						}
					}
					outs = append(outs, acc)
				}
			}
		}
		var mean, ss float64
		for _, o := range outs {
			mean += o
		}
		mean /= n
		for _, o := range outs {
			ss += (o - mean) * (o - mean)
		}
		m := cfg.BNMomentum
		wantMean, wantVar := m*mean, m*ss/(n-1)+(1-m)
		if math.Abs(float64(w.StemBN.Mean[c])-wantMean) > 1e-4 || math.Abs(float64(w.StemBN.Var[c])-wantVar) > 1e-4*wantVar {
			t.Errorf("stem channel %d: running mean %v var %v, want %v %v", c, w.StemBN.Mean[c], w.StemBN.Var[c], wantMean, wantVar)
		}
	}
	mean0 := w.StemBN.Mean[0]
	snap := tr.Weights()
	if _, err := tr.Step(d.batch(s, 0, 16)); err != nil {
		t.Fatal(err)
	}
	if snap.StemBN.Mean[0] != mean0 {
		t.Error("Weights() snapshot changed when training went on")
	}
	if w.StemBN.Mean[0] == mean0 {
		t.Error("running mean did not move on the second step")
	}
}

// TestResumeIsExact: training k steps, checkpointing the weights and
// optimiser state, and resuming in a fresh trainer gives bit-identical
// weights to training straight through.
func TestResumeIsExact(t *testing.T) {
	for _, opt := range []string{"sgd", "adam"} {
		t.Run(opt, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.BatchSize, cfg.Optimizer = 8, opt
			cfg.Schedule, cfg.StepSize, cfg.Gamma = "step", 3, 0.5
			d := newDataset(tinyShape, 24, rand.New(rand.NewPCG(11, 12)), true)
			batch := func(s int) Batch { return d.batch(tinyShape, 8*(s%3), 8) }

			w := tinyWeights(t, 14)
			a := newTrainer(t, cfg, w)
			for s := range 4 {
				if _, err := a.Step(batch(s)); err != nil {
					t.Fatal(err)
				}
			}
			path := t.TempDir() + "/ck.tbn"
			if err := nn.SaveCheckpoint(path, a.Checkpoint("connect4", map[string]string{"run": "resume"})); err != nil {
				t.Fatal(err)
			}
			for s := 4; s < 8; s++ {
				if _, err := a.Step(batch(s)); err != nil {
					t.Fatal(err)
				}
			}

			ck, err := nn.LoadCheckpoint(path)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Resume(cfg, ck, rand.New(rand.NewPCG(1, 2)))
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			if b.Steps() != 4 {
				t.Fatalf("restored step %d, want 4", b.Steps())
			}
			for s := 4; s < 8; s++ {
				if _, err := b.Step(batch(s)); err != nil {
					t.Fatal(err)
				}
			}
			wa, wb := w.Tensors(), b.Weights().Tensors()
			for i := range wa {
				for j := range wa[i].Data {
					if math.Float32bits(wa[i].Data[j]) != math.Float32bits(wb[i].Data[j]) {
						t.Fatalf("%s[%d]: straight %v, resumed %v", wa[i].Name, j, wa[i].Data[j], wb[i].Data[j])
					}
				}
			}
		})
	}
}

func TestRestoreRejectsMismatch(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize = 8
	adam := newTrainer(t, cfg, tinyWeights(t, 15))
	cfg.Optimizer = "sgd"
	sgd := newTrainer(t, cfg, tinyWeights(t, 15))
	if err := sgd.Restore(adam.State()); err == nil || !strings.Contains(err.Error(), `"adam"`) {
		t.Errorf("restoring adam state into sgd: %v", err)
	}
	st := sgd.State()
	st.Arrays[2].Data = st.Arrays[2].Data[1:]
	if err := sgd.Restore(st); err == nil || !strings.Contains(err.Error(), st.Arrays[2].Name) {
		t.Errorf("restoring a short array: %v", err)
	}
	st = sgd.State()
	st.Scalars["step"] = -1
	if err := sgd.Restore(st); err == nil {
		t.Error("restoring step -1 succeeded")
	}
}

func TestStepRejectsBadBatch(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize = 4
	tr := newTrainer(t, cfg, tinyWeights(t, 16))
	good := newDataset(tinyShape, 4, rand.New(rand.NewPCG(1, 1)), true).batch(tinyShape, 0, 4)
	for _, tc := range []struct {
		want string
		edit func(b *Batch)
	}{
		{"Obs", func(b *Batch) { b.Obs = b.Obs[1:] }},
		{"Policy", func(b *Batch) { b.Policy = nil }},
		{"Value has", func(b *Batch) { b.Value = append(b.Value, 0) }},
		{"Legal", func(b *Batch) { b.Legal = b.Legal[:5] }},
		{"Legal[2]", func(b *Batch) { b.Legal = append([]float32(nil), b.Legal...); b.Legal[2] = 0.5 }},
		{"Value[1]", func(b *Batch) { b.Value = []float32{0, float32(math.NaN()), 0, 0} }},
		{"illegal move", func(b *Batch) {
			b.Legal = append([]float32(nil), b.Legal...)
			b.Policy = append([]float32(nil), b.Policy...)
			b.Legal[5], b.Policy[5] = 0, 0.1
		}},
	} {
		b := good
		tc.edit(&b)
		if _, err := tr.Step(b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Step error %v", tc.want, err)
		}
	}
	if tr.Steps() != 0 {
		t.Errorf("rejected batches advanced the step count to %d", tr.Steps())
	}
}

// TestScheduleDrivesUpdates: with plain SGD (no momentum), the update of
// step 1 under a step schedule that halves the rate after step 0 is half
// that of a constant rate from the same state.
func TestScheduleDrivesUpdates(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize, cfg.Optimizer, cfg.Momentum, cfg.WeightDecay, cfg.LearningRate = 8, "sgd", 0, 0, 0.05
	halved := cfg
	halved.Schedule, halved.StepSize, halved.Gamma = "step", 1, 0.5
	d := newDataset(tinyShape, 8, rand.New(rand.NewPCG(13, 14)), false)
	deltas := map[string]float64{}
	for name, c := range map[string]Config{"constant": cfg, "step": halved} {
		w := tinyWeights(t, 17)
		tr := newTrainer(t, c, w)
		if _, err := tr.Step(d.batch(tinyShape, 0, 8)); err != nil {
			t.Fatal(err)
		}
		before := w.PolicyFC.B[0]
		if _, err := tr.Step(d.batch(tinyShape, 0, 8)); err != nil {
			t.Fatal(err)
		}
		deltas[name] = float64(w.PolicyFC.B[0] - before)
	}
	if r := deltas["step"] / deltas["constant"]; math.Abs(r-0.5) > 1e-3 {
		t.Errorf("update ratio step/constant = %v (%v / %v), want 0.5", r, deltas["step"], deltas["constant"])
	}
}

// TestTimedDropDrivesUpdates: under schedule "timed" the rate is constant
// until DropLearningRate, which multiplies every later update by gamma, once;
// with another schedule DropLearningRate does nothing.
func TestTimedDropDrivesUpdates(t *testing.T) {
	cfg := DefaultConfig()
	cfg.BatchSize, cfg.Optimizer, cfg.Momentum, cfg.WeightDecay, cfg.LearningRate = 8, "sgd", 0, 0, 0.05
	timed := cfg
	timed.Schedule, timed.Gamma = "timed", 0.3
	d := newDataset(tinyShape, 8, rand.New(rand.NewPCG(13, 14)), false)
	deltas := map[string]float64{}
	for name, c := range map[string]Config{"constant": cfg, "timed": timed} {
		w := tinyWeights(t, 17)
		tr := newTrainer(t, c, w)
		if _, err := tr.Step(d.batch(tinyShape, 0, 8)); err != nil {
			t.Fatal(err)
		}
		if got := tr.LearningRate(); got != 0.05 {
			t.Errorf("%s: rate before the drop %v, want 0.05", name, got)
		}
		dropped := tr.DropLearningRate()
		if dropped != (name == "timed") || tr.DropLearningRate() {
			t.Errorf("%s: DropLearningRate reported %v, then a second drop", name, dropped)
		}
		before := w.PolicyFC.B[0]
		if _, err := tr.Step(d.batch(tinyShape, 0, 8)); err != nil {
			t.Fatal(err)
		}
		deltas[name] = float64(w.PolicyFC.B[0] - before)
	}
	if r := deltas["timed"] / deltas["constant"]; math.Abs(r-0.3) > 1e-3 {
		t.Errorf("update ratio timed/constant after the drop = %v, want 0.3", r)
	}
}

// TestGradientMatchesFiniteDifferences checks gorgonia's gradients of the
// head parameters against central differences of the loss.
func TestGradientMatchesFiniteDifferences(t *testing.T) {
	w := tinyWeights(t, 18)
	cfg := DefaultConfig()
	cfg.BatchSize = 8
	cfg.Engine = EngineGorgonia
	tr := newTrainer(t, cfg, w)
	g := tr.graph
	d := newDataset(tinyShape, 8, rand.New(rand.NewPCG(15, 16)), true)
	b := d.batch(tinyShape, 0, 8)
	copy(g.obsBuf, b.Obs)
	copy(g.piBuf, b.Policy)
	copy(g.zBuf, b.Value)
	copy(g.maskBuf, b.Legal)
	run := func() float64 {
		t.Helper()
		if err := g.vm.RunAll(); err != nil {
			t.Fatal(err)
		}
		c, err := scalar(g.cost)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range tr.params {
			gv, _ := p.node.Grad()
			clear(gv.Data().([]float32))
		}
		g.vm.Reset()
		return c
	}
	checked := 0
	for _, p := range tr.params {
		switch p.name {
		case "policy.fc.w", "policy.fc.b", "value.fc2.w", "value.fc2.b", "value.bn.gamma", "value.bn.beta", "policy.bn.gamma":
		default:
			continue
		}
		for _, j := range []int{0, len(p.data) / 2, len(p.data) - 1} {
			if err := g.vm.RunAll(); err != nil {
				t.Fatal(err)
			}
			gv, _ := p.node.Grad()
			g := float64(gv.Data().([]float32)[j])
			run()
			// A step small enough that few ReLU kinks are crossed.
			fd := centralDiff(p.data, j, 3e-3, run)
			if math.Abs(g-fd) > 2e-3+0.02*math.Abs(fd) {
				t.Errorf("%s[%d]: gradient %v, finite difference %v", p.name, j, g, fd)
			}
			checked++
		}
	}
	if checked != 21 {
		t.Fatalf("checked %d gradients, want 21", checked)
	}
}

// TestParamsFollowTensorNames: the trainable arrays of the graph are those
// of nn.Weights.Tensors, running statistics excepted, in the same order and
// under the same names (optimiser state is named after them).
func TestParamsFollowTensorNames(t *testing.T) {
	w := tinyWeights(t, 19)
	cfg := DefaultConfig()
	cfg.BatchSize = 2
	cfg.Engine = EngineGorgonia
	tr := newTrainer(t, cfg, w)
	var want []string
	for _, ts := range w.Tensors() {
		if !strings.HasSuffix(ts.Name, ".mean") && !strings.HasSuffix(ts.Name, ".var") {
			want = append(want, ts.Name)
		}
	}
	if len(tr.params) != len(want) {
		t.Fatalf("%d params, want %d", len(tr.params), len(want))
	}
	for i, p := range tr.params {
		if p.name != want[i] {
			t.Errorf("param %d is %q, want %q", i, p.name, want[i])
		}
	}
}

// TestFailedStepChangesNothing: a batch whose loss is not finite is
// reported, and the next good step gives exactly what it gives on a fresh
// trainer (no stale gradients, no polluted running statistics).
func TestFailedStepChangesNothing(t *testing.T) {
	d := newDataset(tinyShape, 8, rand.New(rand.NewPCG(41, 42)), true)
	good := d.batch(tinyShape, 0, 8)
	bad := good
	bad.Obs = append([]float32(nil), good.Obs...)
	bad.Obs[3] = float32(math.NaN())
	cfg := DefaultConfig()
	cfg.BatchSize = 8
	var final [2][]float32
	for k, fail := range []bool{true, false} {
		w := tinyWeights(t, 43)
		tr := newTrainer(t, cfg, w)
		if fail {
			if _, err := tr.Step(bad); err == nil || !strings.Contains(err.Error(), "loss is NaN") {
				t.Fatalf("NaN observation: Step error %v", err)
			}
			if tr.Steps() != 0 {
				t.Fatalf("failed step counted: %d", tr.Steps())
			}
		}
		if _, err := tr.Step(good); err != nil {
			t.Fatal(err)
		}
		for _, ts := range w.Tensors() {
			final[k] = append(final[k], ts.Data...)
		}
	}
	for i := range final[0] {
		if math.Float32bits(final[0][i]) != math.Float32bits(final[1][i]) {
			t.Fatalf("value %d: %v after a failed step, %v without", i, final[0][i], final[1][i])
		}
	}
}
