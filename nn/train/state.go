package train

import (
	"fmt"
	"math"

	"tabula/nn"
)

// slotNames names the optimiser's per-parameter arrays.
func (t *Trainer) slotNames() []string {
	if t.cfg.Optimizer == "adam" {
		return []string{"adam.m", "adam.v"}
	}
	return []string{"sgd.velocity"}
}

// State exports the optimiser state: its kind, the step count and a copy of
// every per-parameter array, named "<slot>/<tensor>" (e.g.
// "adam.m/stem.w"). Saved with the weights in a checkpoint, it lets Restore
// resume training exactly.
func (t *Trainer) State() *nn.OptimizerState {
	o := &nn.OptimizerState{Kind: t.cfg.Optimizer, Scalars: map[string]float64{"step": float64(t.step)}}
	slots := [][][]float32{t.slot1, t.slot2}
	for k, name := range t.slotNames() {
		for i, p := range t.net.params {
			o.Arrays = append(o.Arrays, nn.Tensor{
				Name:  name + "/" + p.name,
				Shape: []int{len(p.data)},
				Data:  append([]float32(nil), slots[k][i]...),
			})
		}
	}
	return o
}

// Restore loads optimiser state exported by State from a trainer with the
// same optimiser and network. It checks the kind, the step and every array's
// name and length before changing anything.
func (t *Trainer) Restore(o *nn.OptimizerState) error {
	if o == nil {
		return fmt.Errorf("train: restore: nil optimizer state")
	}
	if o.Kind != t.cfg.Optimizer {
		return fmt.Errorf("train: restore: state is for optimizer %q, trainer uses %q", o.Kind, t.cfg.Optimizer)
	}
	step, ok := o.Scalars["step"]
	if !ok || step < 0 || step > 1<<53 || step != math.Trunc(step) {
		return fmt.Errorf("train: restore: scalar step = %v (present %v), want a whole number >= 0", step, ok)
	}
	names := t.slotNames()
	if want := len(names) * len(t.net.params); len(o.Arrays) != want {
		return fmt.Errorf("train: restore: %d arrays, want %d", len(o.Arrays), want)
	}
	slots := [][][]float32{t.slot1, t.slot2}
	for k, name := range names {
		for i, p := range t.net.params {
			a := o.Arrays[k*len(t.net.params)+i]
			if want := name + "/" + p.name; a.Name != want || len(a.Data) != len(p.data) {
				return fmt.Errorf("train: restore: array %q of %d values, want %q of %d", a.Name, len(a.Data), want, len(p.data))
			}
		}
	}
	for k := range names {
		for i := range t.net.params {
			copy(slots[k][i], o.Arrays[k*len(t.net.params)+i].Data)
		}
	}
	t.step = int64(step)
	return nil
}
