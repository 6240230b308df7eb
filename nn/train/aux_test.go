package train

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"tabula/nn"
)

var auxShape = nn.Shape{Planes: 3, Height: 5, Width: 5, Actions: 26}

func auxWeights(t testing.TB, seed uint64) *nn.Weights {
	t.Helper()
	cfg := nn.Config{Filters: 8, Blocks: 2, PolicyFilters: 2, ValueFilters: 1, ValueHidden: 16,
		Ownership: true, Score: true, OpponentPolicy: true, GlobalPooling: true, PoolChannels: 3}
	w, err := nn.NewWeights(cfg, auxShape, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// auxBatch is a dataset batch of auxShape with ownership and score targets
// that depend on the board (the mover's stones and a fixed pattern), and
// with every fourth example without targets; and with opponent-policy
// targets (three random actions at 0.5, 0.3 and 0.2) but for every third
// example.
func auxBatch(n int, rng *rand.Rand) Batch {
	d := newDataset(auxShape, n, rng, true)
	b := d.batch(auxShape, 0, n)
	hw := auxShape.Height * auxShape.Width
	cells := auxShape.Planes * hw
	b.Ownership = make([]float32, n*hw)
	b.Score = make([]float32, n)
	b.AuxWeight = make([]float32, n)
	A := auxShape.Actions
	b.OppPolicy = make([]float32, n*A)
	for i := 0; i < n; i++ {
		if i%3 != 2 {
			for _, p := range []float32{0.5, 0.3, 0.2} {
				b.OppPolicy[i*A+rng.IntN(A)] += p
			}
		}
	}
	for i := 0; i < n; i++ {
		if i%4 == 3 {
			continue
		}
		b.AuxWeight[i] = 1
		var sum float32
		for p := 0; p < hw; p++ {
			o := b.Obs[i*cells+p] - b.Obs[i*cells+hw+p] // mine - theirs
			if o == 0 && p%3 == 0 {
				o = 1
			}
			b.Ownership[i*hw+p] = o
			sum += o
		}
		b.Score[i] = sum - 2.5
	}
	return b
}

// TestAuxLossesFall trains a network with global pooling and both
// auxiliary heads on a fixed batch: the ownership and score losses fall,
// and Total is the weighted sum of the terms.
func TestAuxLossesFall(t *testing.T) {
	w := auxWeights(t, 3)
	cfg := DefaultConfig()
	cfg.BatchSize, cfg.LearningRate = 32, 0.01
	tr := newTrainer(t, cfg, w)
	b := auxBatch(32, rand.New(rand.NewPCG(5, 6)))
	first, err := tr.Step(b)
	if err != nil {
		t.Fatal(err)
	}
	var last Losses
	for range 150 {
		if last, err = tr.Step(b); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("first %+v\nlast %+v", first, last)
	// The ownership loss is a cross-entropy: its floor is the entropy of
	// the neutral (0) targets, log 2 each.
	if !(last.Ownership < 0.6*first.Ownership) || !(last.Score < 0.3*first.Score) || !(last.OppPolicy < 0.6*first.OppPolicy) {
		t.Errorf("ownership loss %v -> %v, score loss %v -> %v, opponent policy %v -> %v: want all well down",
			first.Ownership, last.Ownership, first.Score, last.Score, first.OppPolicy, last.OppPolicy)
	}
	want := last.Value + last.Policy + last.L2 + cfg.OwnershipWeight*last.Ownership + cfg.ScoreWeight*last.Score +
		cfg.OppPolicyWeight*last.OppPolicy
	if math.Abs(last.Total-want) > 1e-6 {
		t.Errorf("total %v, want the weighted sum %v", last.Total, want)
	}

	// Without targets (AuxWeight and OppPolicy nil) the auxiliary losses
	// are zero.
	b.AuxWeight, b.OppPolicy = nil, nil
	l, err := tr.Step(b)
	if err != nil {
		t.Fatal(err)
	}
	if l.Ownership != 0 || l.Score != 0 || l.OppPolicy != 0 {
		t.Errorf("losses without targets: ownership %v score %v opponent policy %v, want 0", l.Ownership, l.Score, l.OppPolicy)
	}
}

// TestAuxLossFormula recomputes the ownership and score losses of one step
// from a plain forward pass of the heads.
func TestAuxLossFormula(t *testing.T) {
	w := auxWeights(t, 4)
	cfg := DefaultConfig()
	cfg.BatchSize = 8
	tr := newTrainer(t, cfg, w)
	b := auxBatch(8, rand.New(rand.NewPCG(7, 8)))
	// A network whose heads are constant: ownership.conv.w zero gives
	// x = 0 (tanh 0 = 0) everywhere, score.fc.w zero gives s = bias.
	clear(w.Ownership.W)
	clear(w.ScoreFC.W)
	w.ScoreFC.B[0] = 0.25
	// policy.opp.fc zero: a uniform reply over the 26 actions.
	clear(w.OppPolicyFC.W)
	clear(w.OppPolicyFC.B)
	l, err := tr.Step(b)
	if err != nil {
		t.Fatal(err)
	}
	hw := 25
	var own, score float64
	for i := 0; i < 8; i++ {
		a := float64(b.AuxWeight[i])
		for p := 0; p < hw; p++ {
			q := (1 + float64(b.Ownership[i*hw+p])) / 2
			own += a * -(q*math.Log(0.5) + (1-q)*math.Log(0.5))
		}
		d := 0.25 - float64(b.Score[i])/25
		score += a * d * d
	}
	own /= 8 * 25
	score /= 8
	var opp float64
	for _, p := range b.OppPolicy {
		opp += float64(p) * math.Log(26)
	}
	opp /= 8
	if math.Abs(l.Ownership-own) > 1e-5 || math.Abs(l.Score-score) > 1e-5 || math.Abs(l.OppPolicy-opp) > 1e-5 {
		t.Errorf("ownership loss %v, want %v; score loss %v, want %v; opponent policy %v, want %v", l.Ownership, own, l.Score, score, l.OppPolicy, opp)
	}
}

// TestAuxGradientMatchesFiniteDifferences checks the gorgonia engine's
// gradients of the pooling layer, the heads and the layers before the pooling against
// central differences of the whole loss.
func TestAuxGradientMatchesFiniteDifferences(t *testing.T) {
	w := auxWeights(t, 9)
	randomizeBN(w, rand.New(rand.NewPCG(9, 9)))
	cfg := DefaultConfig()
	cfg.BatchSize = 8
	cfg.BNMomentum = 1e-9 // keep running statistics (unused in training) still
	cfg.Engine = EngineGorgonia
	tr := newTrainer(t, cfg, w)
	g := tr.graph
	b := auxBatch(8, rand.New(rand.NewPCG(10, 11)))
	copy(g.obsBuf, b.Obs)
	copy(g.piBuf, b.Policy)
	copy(g.zBuf, b.Value)
	copy(g.maskBuf, b.Legal)
	copy(g.auxWBuf, b.AuxWeight)
	copy(g.ownBuf, b.Ownership)
	for i := range g.scoreBuf {
		g.scoreBuf[i] = b.Score[i] / 25
	}
	copy(g.oppBuf, b.OppPolicy)
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
		case "block1.pool.fc.w", "block1.pool.fc.b", "block1.bn1.gamma", "block1.bn1.beta", "block1.conv1.w",
			"ownership.conv.w", "score.fc.w", "score.fc.b", "policy.opp.fc.w", "policy.opp.fc.b":
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
			fd := centralDiff(p.data, j, 1e-3, run)
			if math.Abs(g-fd) > 2e-3+0.03*math.Abs(fd) {
				t.Errorf("%s[%d]: gradient %v, finite difference %v", p.name, j, g, fd)
			}
			checked++
		}
	}
	if checked != 30 {
		t.Fatalf("checked %d gradients, want 30", checked)
	}
}

// TestAuxParamsFollowTensorNames: with pooling and heads too, the graph's
// parameters are nn.Weights.Tensors in order (optimiser state is named
// after them).
func TestAuxParamsFollowTensorNames(t *testing.T) {
	w := auxWeights(t, 12)
	cfg := DefaultConfig()
	cfg.BatchSize = 2
	tr := newTrainer(t, cfg, w)
	var want []string
	for _, ts := range w.Tensors() {
		if !strings.HasSuffix(ts.Name, ".mean") && !strings.HasSuffix(ts.Name, ".var") {
			want = append(want, ts.Name)
		}
	}
	var got []string
	for _, p := range tr.params {
		got = append(got, p.name)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("params\n%v\nwant\n%v", got, want)
	}
	if !strings.Contains(strings.Join(got, " "), "block1.pool.fc.w") {
		t.Errorf("no pooling layer among %v", got)
	}
}

func TestAuxBatchChecks(t *testing.T) {
	w := auxWeights(t, 13)
	cfg := DefaultConfig()
	cfg.BatchSize = 4
	tr := newTrainer(t, cfg, w)
	for name, mod := range map[string]func(b *Batch){
		"short ownership":   func(b *Batch) { b.Ownership = b.Ownership[:10] },
		"ownership 2":       func(b *Batch) { b.Ownership[3] = 2 },
		"NaN score":         func(b *Batch) { b.Score[1] = float32(math.NaN()) },
		"aux weight 0.5":    func(b *Batch) { b.AuxWeight[0] = 0.5 },
		"short aux weights": func(b *Batch) { b.AuxWeight = b.AuxWeight[:2] },
		"short opp policy":  func(b *Batch) { b.OppPolicy = b.OppPolicy[:10] },
		"opp policy 2":      func(b *Batch) { b.OppPolicy[5] = 2 },
	} {
		b := auxBatch(4, rand.New(rand.NewPCG(1, 1)))
		mod(&b)
		if _, err := tr.Step(b); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
