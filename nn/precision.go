package nn

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"tabula/games"
	"tabula/nn/gemm"
)

// Precision is the arithmetic of a Model's residual tower. The stem, the
// heads, the residual additions, biases and ReLUs stay in FP32 at every
// precision (they are a few percent of the work); only the 3x3
// convolutions of the tower change.
type Precision uint8

const (
	// FP32 is single precision throughout (the default).
	FP32 Precision = iota
	// BF16 rounds the tower's weights (once) and its convolutions' inputs
	// (per layer) to bfloat16, round to nearest even, and accumulates in
	// FP32 (AVX512_BF16's VDPBF16PS).
	BF16
	// Int8 quantises the tower's weights to int8 with a scale per output
	// channel (rounded by GPTQ against calibration inputs, see
	// quantizeGPTQ) and each convolution's input (a ReLU output, so >= 0) to
	// uint8 with a scale per layer calibrated on sample positions, and
	// accumulates in int32 (AVX512_VNNI's VPDPBUSD).
	Int8
)

// PrecisionAuto is the precision setting that picks, at each model build,
// the fastest precision with native kernels on this CPU whose results pass
// the accuracy check against FP32 (see checkPositions).
const PrecisionAuto = "auto"

var precisionNames = [...]string{FP32: "fp32", BF16: "bf16", Int8: "int8"}

func (p Precision) String() string {
	if int(p) < len(precisionNames) {
		return precisionNames[p]
	}
	return fmt.Sprintf("Precision(%d)", p)
}

// ParsePrecision parses "fp32", "bf16" or "int8" ("" is fp32).
func ParsePrecision(s string) (Precision, error) {
	if s == "" {
		return FP32, nil
	}
	for p, name := range precisionNames {
		if s == name {
			return Precision(p), nil
		}
	}
	return FP32, fmt.Errorf("nn: precision %q, want fp32, bf16, int8 or auto", s)
}

// ValidatePrecision checks a precision setting: fp32, bf16, int8, auto or
// empty (fp32).
func ValidatePrecision(s string) error {
	if s == PrecisionAuto {
		return nil
	}
	_, err := ParsePrecision(s)
	return err
}

// NativePrecision reports whether precision p runs on assembly kernels (on
// this CPU and build, with the kernel gemm has selected: AVX-512 runs both,
// AVX2 int8 only). Elsewhere BF16 and Int8 run portable Go, correct but
// several times slower than FP32.
func NativePrecision(p Precision) bool {
	switch gemm.LowPrecisionKernel() {
	case "avx512":
		return true
	case "avx2":
		return p != BF16
	}
	return p == FP32
}

// lowConv is one tower convolution in reduced precision.
type lowConv struct {
	bf      *gemm.PackedBF16
	q       *gemm.PackedInt8
	inScale float32 // Int8: value of one step of the uint8 input
}

// kPad returns the row length of the convolution's im2col matrix.
func (l lowConv) kPad() int {
	if l.bf != nil {
		return l.bf.KPad()
	}
	return l.q.KPad()
}

// Precision returns the precision of m's tower.
func (m *Model) Precision() Precision { return m.prec }

// InputScales returns, for an Int8 model, the calibrated scale of each
// tower convolution's input (conv1 and conv2 of each block in order): the
// activation value of one uint8 step. It is nil at other precisions.
func (m *Model) InputScales() []float32 {
	if m.prec != Int8 {
		return nil
	}
	s := make([]float32, len(m.low))
	for i, l := range m.low {
		s[i] = l.inScale
	}
	return s
}

// calibPercentile is the fraction of a tower convolution's sampled input
// values, over all channels, that the int8 scale represents without
// clipping: the largest few are clipped to 255 steps.
const calibPercentile = 0.99999

// hessPositions is how many of the calibration positions (the first, in
// batches of 64) make the Hessians of GPTQ's weight rounding (quantizeGPTQ).
const hessPositions = 128

// WithPrecision returns a Model that shares m's FP32 layers and runs its
// tower in precision p. Int8 needs calibration positions: calib holds n
// observations laid out as Forward takes them (CalibrationPositions makes a
// set from random play); each convolution's input scale is the
// calibPercentile quantile of its FP32 input values over them, and the
// first hessPositions of them make the Gram matrices by which GPTQ rounds
// each convolution's weights. BF16 and FP32 ignore calib.
func (m *Model) WithPrecision(p Precision, calib []float32, n int) (*Model, error) {
	if int(p) >= len(precisionNames) {
		return nil, fmt.Errorf("nn: precision %d unknown", p)
	}
	if m.prec != FP32 {
		return nil, fmt.Errorf("nn: model is already %s; lower an FP32 model", m.prec)
	}
	c := *m
	c.prec, c.low = p, nil
	switch p {
	case BF16:
		for _, b := range m.blocks {
			for _, l := range []layer{b.conv1, b.conv2} {
				c.low = append(c.low, lowConv{bf: gemm.PackBF16(l.w, l.k, l.n, l.n, false)})
			}
		}
	case Int8:
		per := m.shape.Planes * m.hw
		if n < 1 || len(calib) < n*per {
			return nil, fmt.Errorf("nn: int8 calibration: %d values for %d positions of %d, want at least one position",
				len(calib), n, per)
		}
		quant, hess, err := m.calibrate(calib, n)
		if err != nil {
			return nil, err
		}
		for i, b := range m.blocks {
			for j, l := range []layer{b.conv1, b.conv2} {
				q, scale := quantizeGPTQ(l.w, l.k, l.n, hess[2*i+j])
				c.low = append(c.low, lowConv{q: gemm.PackInt8Scaled(q, l.k, l.n, l.n, false, scale), inScale: quant[2*i+j]})
			}
		}
	}
	if p != FP32 {
		kp := c.low[0].kPad()
		c.lowCopies = im2colPlanStride(m.shape.Height, m.shape.Width, m.cfg.Filters, kp)
		size := 2
		if p == Int8 {
			size = 1
		}
		c.lowAlign = planAlign(c.lowCopies, size)
	}
	return &c, nil
}

// calibrate runs n positions through m in FP32 and returns, for each tower
// convolution, the scale of its uint8 input: the calibPercentile quantile
// of the input's values / 255 (a tiny positive scale for an all-zero input).
func (m *Model) calibrate(obs []float32, n int) (scales []float32, hess [][]float32, err error) {
	const batch = 64
	net := m.newNet(min(n, batch), defaultChunk(min(n, batch), m.hw))
	values := n * m.hw * m.cfg.Filters // inputs of each convolution
	keep := int(math.Floor((1-calibPercentile)*float64(values))) + 1
	net.record = make([]topK, 2*len(m.blocks))
	for i := range net.record {
		net.record[i].k = keep
	}
	hess = make([][]float32, 2*len(m.blocks))
	for i, b := range m.blocks {
		hess[2*i], hess[2*i+1] = make([]float32, b.conv1.k*b.conv1.k), make([]float32, b.conv2.k*b.conv2.k)
	}
	per, na := m.shape.Planes*m.hw, m.shape.Actions
	logits, vals := make([]float32, batch*na), make([]float32, batch)
	for s := 0; s < n; s += batch {
		nb := min(batch, n-s)
		if s < hessPositions {
			net.hess = hess
		} else {
			net.hess = nil
		}
		if err := net.Forward(obs[s*per:(s+nb)*per], nb, logits, vals); err != nil {
			return nil, nil, fmt.Errorf("nn: int8 calibration: %w", err)
		}
	}
	scales = make([]float32, len(net.record))
	for i, t := range net.record {
		q := t.min()
		switch {
		case t.bad:
			return nil, nil, fmt.Errorf("nn: int8 calibration: convolution %d has a non-finite input", i)
		case !(q > 0):
			q = 1e-6 // all zero: any scale will do
		}
		scales[i] = q / 255
	}
	return scales, hess, nil
}

// topK keeps the k largest values added (a min-heap), and whether any was
// not finite.
type topK struct {
	k   int
	h   []float32
	bad bool
}

func (t *topK) add(x []float32) {
	for _, v := range x {
		if len(t.h) == t.k && v <= t.h[0] {
			continue
		}
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			t.bad = true
			continue
		}
		if len(t.h) < t.k {
			t.h = append(t.h, v)
			for i := len(t.h) - 1; i > 0; { // sift up
				p := (i - 1) / 2
				if t.h[p] <= t.h[i] {
					break
				}
				t.h[p], t.h[i] = t.h[i], t.h[p]
				i = p
			}
			continue
		}
		t.h[0] = v
		for i := 0; ; { // sift down
			c := 2*i + 1
			if c >= len(t.h) {
				break
			}
			if c+1 < len(t.h) && t.h[c+1] < t.h[c] {
				c++
			}
			if t.h[i] <= t.h[c] {
				break
			}
			t.h[i], t.h[c] = t.h[c], t.h[i]
			i = c
		}
	}
}

// min returns the smallest value kept: the k-th largest added (0 if none).
func (t *topK) min() float32 {
	if len(t.h) == 0 {
		return 0
	}
	return t.h[0]
}

// CalibrationPositions returns the observations of n positions of g from
// random play seeded by seed (every position of the games played, in order,
// terminal ones skipped), for int8 calibration and accuracy checks, with
// each position's legal actions.
func CalibrationPositions(g games.Game, n int, seed uint64) (obs []float32, legal [][]int, err error) {
	if g == nil {
		return nil, nil, errors.New("nn: calibration positions: nil game")
	}
	if n < 1 {
		return nil, nil, fmt.Errorf("nn: calibration positions: n = %d, want >= 1", n)
	}
	p, h, w := g.ObservationShape()
	per := p * h * w
	obs = make([]float32, n*per)
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var buf []int
	s := g.NewInitialState()
	for i := 0; i < n; {
		buf = s.LegalActions(buf)
		if len(buf) == 0 {
			s = g.NewInitialState()
			continue
		}
		s.Observation(obs[i*per : (i+1)*per])
		legal = append(legal, append([]int(nil), buf...))
		i++
		s.ApplyAction(buf[r.IntN(len(buf))])
	}
	return obs, legal, nil
}

// Agreement compares the outputs of two networks on the same positions:
// the fraction of positions where the largest logit among the legal actions
// is the same action, and the largest and mean absolute difference of the
// values.
//
// Clear counts the positions where the reference's best legal logit beats
// the second by at least ClearMargin, and ClearSame the fraction of those
// with the same argmax: an untrained net's logits are nearly equal, so its
// argmax flips on tiny differences. OverDV counts the positions whose values
// differ by more than TailDV: the tail of the value error, which the single
// largest difference describes poorly.
type Agreement struct {
	Positions     int
	ArgmaxSame    float64
	MaxDV, MeanDV float64
	OverDV        int
	Clear         int
	ClearSame     float64
}

// TailDV is the value difference beyond which Agreement.OverDV counts a
// position.
const TailDV = 0.05

// ClearMargin is the logit margin of Agreement.Clear.
const ClearMargin = 0.05

func (a Agreement) String() string {
	return fmt.Sprintf("%d positions: argmax equal %.2f%% (%.2f%% of the %d with a margin >= %g), |dv| max %.4f mean %.5f, %d over %g",
		a.Positions, 100*a.ArgmaxSame, 100*a.ClearSame, a.Clear, ClearMargin, a.MaxDV, a.MeanDV, a.OverDV, TailDV)
}

// Merge returns the agreement over the positions of a and b together.
func (a Agreement) Merge(b Agreement) Agreement {
	avg := func(x, y float64, nx, ny int) float64 {
		if nx+ny == 0 {
			return 0
		}
		return (x*float64(nx) + y*float64(ny)) / float64(nx+ny)
	}
	return Agreement{
		Positions:  a.Positions + b.Positions,
		ArgmaxSame: avg(a.ArgmaxSame, b.ArgmaxSame, a.Positions, b.Positions),
		MaxDV:      max(a.MaxDV, b.MaxDV),
		MeanDV:     avg(a.MeanDV, b.MeanDV, a.Positions, b.Positions),
		OverDV:     a.OverDV + b.OverDV,
		Clear:      a.Clear + b.Clear,
		ClearSame:  avg(a.ClearSame, b.ClearSame, a.Clear, b.Clear),
	}
}

// Compare runs both models on the n positions of obs (with their legal
// actions) and reports their agreement.
func Compare(ref, m *Model, obs []float32, legal [][]int) (Agreement, error) {
	n := len(legal)
	if ref.shape != m.shape {
		return Agreement{}, fmt.Errorf("nn: compare: shapes %+v and %+v differ", ref.shape, m.shape)
	}
	la, va, err := ref.run(obs, n)
	if err != nil {
		return Agreement{}, err
	}
	lb, vb, err := m.run(obs, n)
	if err != nil {
		return Agreement{}, err
	}
	return compareOutputs(la, va, lb, vb, legal, m.shape.Actions), nil
}

// compareOutputs reports the agreement of a network's logits and values
// (lb, vb) with a reference's (la, va) on the positions of legal, na
// actions a position.
func compareOutputs(la, va, lb, vb []float32, legal [][]int, na int) Agreement {
	n := len(legal)
	a := Agreement{Positions: n}
	same, clearSame := 0, 0
	for i := 0; i < n; i++ {
		ra := la[i*na : (i+1)*na]
		best := argmaxLegal(ra, legal[i])
		ok := best == argmaxLegal(lb[i*na:(i+1)*na], legal[i])
		if ok {
			same++
		}
		second := float32(math.Inf(-1))
		for _, x := range legal[i] {
			if x != best {
				second = max(second, ra[x])
			}
		}
		if ra[best]-second >= ClearMargin {
			a.Clear++
			if ok {
				clearSame++
			}
		}
		d := math.Abs(float64(va[i]) - float64(vb[i]))
		a.MaxDV = max(a.MaxDV, d)
		a.MeanDV += d / float64(n)
		if !(d <= TailDV) { // a NaN counts
			a.OverDV++
		}
	}
	a.ArgmaxSame = float64(same) / float64(n)
	if a.Clear > 0 {
		a.ClearSame = float64(clearSame) / float64(a.Clear)
	}
	return a
}

// run evaluates n positions in batches of 64 and returns logits and values.
func (m *Model) run(obs []float32, n int) ([]float32, []float32, error) {
	const batch = 64
	net := m.newNet(min(n, batch), defaultChunk(min(n, batch), m.hw))
	per, na := m.shape.Planes*m.hw, m.shape.Actions
	if len(obs) < n*per {
		return nil, nil, fmt.Errorf("nn: %d observation values for %d positions of %d", len(obs), n, per)
	}
	logits, values := make([]float32, n*na), make([]float32, n)
	for s := 0; s < n; s += batch {
		nb := min(batch, n-s)
		if err := net.Forward(obs[s*per:(s+nb)*per], nb, logits[s*na:(s+nb)*na], values[s:s+nb]); err != nil {
			return nil, nil, err
		}
	}
	return logits, values, nil
}

func argmaxLegal(logits []float32, legal []int) int {
	best := -1
	for _, a := range legal {
		if best < 0 || logits[a] > logits[best] {
			best = a
		}
	}
	return best
}

// The accuracy check of PrecisionAuto: a reduced precision is chosen only if,
// on checkPositions positions from random play (seed checkSeed, not those of
// calibration), it picks the same argmax move as FP32 on at least
// checkMinArgmax of those whose best move leads by ClearMargin, its values
// are within TailDV of FP32's on all but checkMaxOver of the positions, and
// within checkMeanDV on average. Int8 calibrates on calibPositions positions
// (seed calibSeed).
//
// The value bound is on the tail, not on the largest difference. Int8's
// value error is rounding noise spread over the tower (GPTQ's rounding,
// quantizeGPTQ, halves its mean against rounding to nearest), and the
// largest of 512 differences is one outlier that swings between networks of
// the same run, while the next few stay small. Networks refused by a bound
// on the largest difference made FP32's mistakes within one to three
// positions on the Pons sets, so the bound allows at most 2% of the
// positions (10 of 512) off by more than TailDV. A systematic error (a bad
// calibration) moves the mean and the tail, which both still bound; a NaN
// counts in the tail and fails the mean. Measurements: docs/methods.md, int8.
const (
	checkPositions = 512
	checkSeed      = 2
	checkMinArgmax = 0.99
	checkMaxOver   = 0.02
	checkMeanDV    = 0.01
	calibPositions = 512
	calibSeed      = 1
)

// NewModelFor folds w into a Model for positions of g running at precision
// setting prec: "fp32" (or ""), "bf16", "int8" or "auto" (the fastest
// precision with native kernels on this CPU that passes the accuracy check,
// else FP32). Int8 is calibrated on CalibrationPositions of g.
func NewModelFor(w *Weights, g games.Game, prec string) (*Model, error) {
	if err := ValidatePrecision(prec); err != nil {
		return nil, err
	}
	m, err := NewModel(w)
	if err != nil {
		return nil, err
	}
	if prec == "" || prec == "fp32" {
		return m, nil
	}
	if g == nil {
		return nil, errors.New("nn: model for precision " + prec + ": nil game")
	}
	calib, _, err := CalibrationPositions(g, calibPositions, calibSeed)
	if err != nil {
		return nil, err
	}
	if prec != PrecisionAuto {
		p, _ := ParsePrecision(prec)
		return m.WithPrecision(p, calib, calibPositions)
	}
	if !NativePrecision(Int8) {
		return m, nil
	}
	obs, legal, err := CalibrationPositions(g, checkPositions, checkSeed)
	if err != nil {
		return nil, err
	}
	var report []string
	for _, p := range []Precision{Int8, BF16} {
		if !NativePrecision(p) {
			continue
		}
		low, err := m.WithPrecision(p, calib, calibPositions)
		if err != nil {
			return nil, err
		}
		a, err := Compare(m, low, obs, legal)
		if err != nil {
			return nil, err
		}
		failed := autoFailures(a)
		if len(failed) == 0 {
			low.autoCheck = strings.Join(append(report, fmt.Sprintf("%s passes: %v", p, a)), "; ")
			return low, nil
		}
		report = append(report, fmt.Sprintf("%s fails (%s): %v", p, strings.Join(failed, ", "), a))
	}
	m.autoCheck = strings.Join(append(report, "fp32 kept"), "; ")
	return m, nil
}

// autoFailures returns the bounds of the accuracy check that a fails,
// described, or none.
func autoFailures(a Agreement) []string {
	// Near-ties (the best move ahead by less than ClearMargin in logit) do
	// not count: either move is as good to the network, and an untrained
	// network is all near-ties (7x7 Go's initial one kept FP32 for that
	// alone).
	var failed []string
	if a.Clear > 0 && !(a.ClearSame >= checkMinArgmax) {
		failed = append(failed, fmt.Sprintf("clear argmax %.2f%% < %g%%", 100*a.ClearSame, 100*checkMinArgmax))
	}
	if over := float64(a.OverDV) / float64(max(a.Positions, 1)); !(over <= checkMaxOver) {
		failed = append(failed, fmt.Sprintf("%.2f%% of |dv| > %g, over %g%%", 100*over, TailDV, 100*checkMaxOver))
	}
	if !(a.MeanDV <= checkMeanDV) { // a NaN fails
		failed = append(failed, fmt.Sprintf("mean |dv| %.4f > %g", a.MeanDV, checkMeanDV))
	}
	return failed
}

// AutoCheck reports precision auto's accuracy checks for this model: each
// lower precision tried, whether it passed and on which bound it failed.
// It is empty for a model not built by NewModelFor with "auto".
func (m *Model) AutoCheck() string { return m.autoCheck }
