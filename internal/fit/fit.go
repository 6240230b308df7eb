// Package fit fits the weights of a linear evaluation to game results by
// logistic regression, as in Texel's tuning method (Peter Österlund's Texel
// engine, described on the Chess Programming Wiki, "Texel's Tuning Method"):
// a position with feature vector x, fixed part b and result y in [0, 1] is
// predicted to score sigmoid(K*(b + w·x)); the weights w minimise the mean
// squared error or the cross-entropy between y and the prediction, plus an
// L2 penalty pulling w towards prior weights. K, which turns evaluation units
// into a winning chance, is fitted first with the prior weights held fixed
// (FitK), and then held fixed while the weights are fitted (Fit).
//
// Fit runs Newton's method (Gauss-Newton for the squared error) with a
// backtracking line search: for the cross-entropy the problem is convex and
// the method converges in a few iterations; each iteration costs one pass
// over the data building the d x d curvature matrix and a Cholesky solve, so
// it suits up to a few thousand weights.
package fit

import (
	"errors"
	"fmt"
	"math"

	"tabula/internal/linalg"
)

// Row is one sample: the evaluation is Offset + sum of W[Idx[j]]*Val[j].
// Features absent from Idx are 0.
type Row struct {
	Idx    []int32
	Val    []float64
	Offset float64
	// Y is the result in [0, 1] from the evaluation's point of view (1 a
	// win, 0.5 a draw, 0 a loss).
	Y float64
}

// Loss selects the objective.
type Loss int

const (
	// CrossEntropy is -y*log(p) - (1-y)*log(1-p), the logistic
	// regression's log-loss.
	CrossEntropy Loss = iota
	// MSE is (y-p)^2, Texel's original objective.
	MSE
)

// String names the loss.
func (l Loss) String() string {
	switch l {
	case CrossEntropy:
		return "cross-entropy"
	case MSE:
		return "mse"
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// ParseLoss reads "cross-entropy" (or "ce") and "mse".
func ParseLoss(s string) (Loss, error) {
	switch s {
	case "cross-entropy", "ce":
		return CrossEntropy, nil
	case "mse":
		return MSE, nil
	}
	return 0, fmt.Errorf("fit: loss %q: want cross-entropy (ce) or mse", s)
}

// Check validates rows against a weight vector of dim entries: equal index
// and value lengths, indices in range, finite values, results in [0, 1].
func Check(rows []Row, dim int) error {
	if len(rows) == 0 {
		return errors.New("fit: no samples")
	}
	for i, r := range rows {
		if len(r.Idx) != len(r.Val) {
			return fmt.Errorf("fit: sample %d: %d indices but %d values", i, len(r.Idx), len(r.Val))
		}
		if !(r.Y >= 0 && r.Y <= 1) {
			return fmt.Errorf("fit: sample %d: result %v outside [0, 1]", i, r.Y)
		}
		if math.IsNaN(r.Offset) || math.IsInf(r.Offset, 0) {
			return fmt.Errorf("fit: sample %d: offset %v is not finite", i, r.Offset)
		}
		for j, k := range r.Idx {
			if k < 0 || int(k) >= dim {
				return fmt.Errorf("fit: sample %d: feature index %d outside [0, %d)", i, k, dim)
			}
			if v := r.Val[j]; math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("fit: sample %d: feature %d value %v is not finite", i, k, v)
			}
		}
	}
	return nil
}

// Eval returns r's evaluation under weights w.
func (r *Row) Eval(w []float64) float64 {
	e := r.Offset
	for j, k := range r.Idx {
		e += w[k] * r.Val[j]
	}
	return e
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// pointLoss returns the loss of predicting p = sigmoid(z) for result y.
func pointLoss(loss Loss, z, y float64) float64 {
	if loss == MSE {
		d := y - sigmoid(z)
		return d * d
	}
	// -y*log(p) - (1-y)*log(1-p) with log(p) = -softplus(-z), stable.
	return y*softplus(-z) + (1-y)*softplus(z)
}

func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// Mean returns the mean loss of rows under weights w and scale k, without
// the L2 penalty.
func Mean(rows []Row, w []float64, k float64, loss Loss) float64 {
	var s float64
	for i := range rows {
		s += pointLoss(loss, k*rows[i].Eval(w), rows[i].Y)
	}
	return s / float64(len(rows))
}

// FitK returns the scale K > 0 minimising the mean loss of rows under the
// fixed weights w, found by golden-section search on log K over
// [kMin, kMax]. The evaluations must not all be 0.
func FitK(rows []Row, w []float64, loss Loss, kMin, kMax float64) (float64, error) {
	if err := Check(rows, len(w)); err != nil {
		return 0, err
	}
	if !(kMin > 0 && kMax > kMin) {
		return 0, fmt.Errorf("fit: K range [%v, %v]: want 0 < min < max", kMin, kMax)
	}
	evals := make([]float64, len(rows))
	nonzero := false
	for i := range rows {
		evals[i] = rows[i].Eval(w)
		nonzero = nonzero || evals[i] != 0
	}
	if !nonzero {
		return 0, errors.New("fit: every evaluation is 0, so K is undetermined")
	}
	f := func(logK float64) float64 {
		k := math.Exp(logK)
		var s float64
		for i, e := range evals {
			s += pointLoss(loss, k*e, rows[i].Y)
		}
		return s
	}
	a, b := math.Log(kMin), math.Log(kMax)
	const g = 0.6180339887498949
	c, d := b-g*(b-a), a+g*(b-a)
	fc, fd := f(c), f(d)
	for b-a > 1e-7 {
		if fc < fd {
			b, d, fd = d, c, fc
			c = b - g*(b-a)
			fc = f(c)
		} else {
			a, c, fc = c, d, fd
			d = a + g*(b-a)
			fd = f(d)
		}
	}
	return math.Exp((a + b) / 2), nil
}

// Config sets up Fit.
type Config struct {
	Loss Loss
	// L2 is the penalty's weight: the objective is the mean loss plus
	// L2 * sum (w[i] - Prior[i])^2.
	L2 float64
	// Prior is where the penalty pulls each weight; nil means 0.
	Prior []float64
	// Fixed, when set (one entry per weight), marks weights held at their
	// starting values.
	Fixed []bool
	// MaxIter bounds the Newton iterations (default 50).
	MaxIter int
	// Tol stops the iterations when the objective improves by less than
	// Tol times its value (default 1e-10).
	Tol float64
}

// Result is what Fit found.
type Result struct {
	W []float64
	// Objective is the mean loss plus the penalty at W; Loss the mean
	// loss alone.
	Objective, Loss float64
	Iters           int
}

// Fit returns the weights minimising the objective of cfg on rows with the
// scale k held fixed, starting from w0 (not modified).
func Fit(rows []Row, w0 []float64, k float64, cfg Config) (Result, error) {
	dim := len(w0)
	if err := Check(rows, dim); err != nil {
		return Result{}, err
	}
	switch {
	case !(k > 0) || math.IsInf(k, 0):
		return Result{}, fmt.Errorf("fit: K = %v, want a finite K > 0", k)
	case cfg.L2 < 0:
		return Result{}, fmt.Errorf("fit: L2 = %v, want >= 0", cfg.L2)
	case cfg.Prior != nil && len(cfg.Prior) != dim:
		return Result{}, fmt.Errorf("fit: %d prior weights for %d weights", len(cfg.Prior), dim)
	case cfg.Fixed != nil && len(cfg.Fixed) != dim:
		return Result{}, fmt.Errorf("fit: %d fixed flags for %d weights", len(cfg.Fixed), dim)
	case cfg.Loss != CrossEntropy && cfg.Loss != MSE:
		return Result{}, fmt.Errorf("fit: unknown loss %v", cfg.Loss)
	}
	maxIter := cfg.MaxIter
	if maxIter <= 0 {
		maxIter = 50
	}
	tol := cfg.Tol
	if tol <= 0 {
		tol = 1e-10
	}
	prior := cfg.Prior
	if prior == nil {
		prior = make([]float64, dim)
	}
	n := float64(len(rows))
	objective := func(w []float64) float64 {
		pen := 0.0
		for i := range w {
			d := w[i] - prior[i]
			pen += d * d
		}
		return Mean(rows, w, k, cfg.Loss) + cfg.L2*pen
	}

	w := append([]float64(nil), w0...)
	obj := objective(w)
	grad := make([]float64, dim)
	hess := make([]float64, dim*dim)
	step := make([]float64, dim)
	trial := make([]float64, dim)
	iters := 0
	for iters < maxIter {
		iters++
		clear(grad)
		clear(hess)
		for i := range rows {
			r := &rows[i]
			z := k * r.Eval(w)
			p := sigmoid(z)
			var g1, h1 float64 // d loss / d eval and the curvature weight
			if cfg.Loss == CrossEntropy {
				g1 = (p - r.Y) * k
				h1 = p * (1 - p) * k * k
			} else {
				dp := p * (1 - p) * k
				g1 = 2 * (p - r.Y) * dp
				h1 = 2 * dp * dp // Gauss-Newton
			}
			for a, ia := range r.Idx {
				va := r.Val[a]
				grad[ia] += g1 * va
				row := hess[int(ia)*dim:]
				for b, ib := range r.Idx {
					row[ib] += h1 * va * r.Val[b]
				}
			}
		}
		for i := range grad {
			grad[i] = grad[i]/n + 2*cfg.L2*(w[i]-prior[i])
			for j := range dim {
				hess[i*dim+j] /= n
			}
			// A small ridge keeps features never seen solvable without
			// a penalty.
			hess[i*dim+i] += 2*cfg.L2 + 1e-12
		}
		for i, f := range cfg.Fixed {
			if f {
				grad[i] = 0
				for j := range dim {
					hess[i*dim+j], hess[j*dim+i] = 0, 0
				}
				hess[i*dim+i] = 1
			}
		}
		if err := solveCholesky(hess, grad, step, dim); err != nil {
			return Result{}, fmt.Errorf("fit: iteration %d: %w", iters, err)
		}
		// Backtracking line search along -step.
		t := 1.0
		newObj := math.Inf(1)
		for range 40 {
			for i := range w {
				trial[i] = w[i] - t*step[i]
			}
			newObj = objective(trial)
			if newObj <= obj {
				break
			}
			t /= 2
		}
		if !(newObj <= obj) {
			break
		}
		copy(w, trial)
		improved := obj - newObj
		obj = newObj
		if improved <= tol*math.Max(obj, 1e-300) {
			break
		}
	}
	return Result{W: w, Objective: obj, Loss: Mean(rows, w, k, cfg.Loss), Iters: iters}, nil
}

// solveCholesky solves a x = b for the symmetric positive definite dim x dim
// matrix a (row-major, overwritten by its Cholesky factor).
func solveCholesky(a, b, x []float64, dim int) error {
	if j := linalg.Cholesky(a, a, dim); j >= 0 {
		return fmt.Errorf("curvature matrix not positive definite at %d (a feature never seen and no L2 penalty?)", j)
	}
	linalg.SolveFactored(a, b, x, dim)
	return nil
}
