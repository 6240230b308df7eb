package train

import (
	"fmt"
	"math"
	"math/rand/v2"

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
		for i, p := range t.params {
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
	if want := len(names) * len(t.params); len(o.Arrays) != want {
		return fmt.Errorf("train: restore: %d arrays, want %d", len(o.Arrays), want)
	}
	slots := [][][]float32{t.slot1, t.slot2}
	for k, name := range names {
		for i, p := range t.params {
			a := o.Arrays[k*len(t.params)+i]
			if want := name + "/" + p.name; a.Name != want || len(a.Data) != len(p.data) {
				return fmt.Errorf("train: restore: array %q of %d values, want %q of %d", a.Name, len(a.Data), want, len(p.data))
			}
		}
	}
	for k := range names {
		for i := range t.params {
			copy(slots[k][i], o.Arrays[k*len(t.params)+i].Data)
		}
	}
	t.step = int64(step)
	return nil
}

// Checkpoint captures the trainer for nn.SaveCheckpoint: a snapshot of the
// weights, the step count and the optimiser state, labelled with the game
// spec and metadata.
func (t *Trainer) Checkpoint(game string, meta map[string]string) *nn.Checkpoint {
	return &nn.Checkpoint{Game: game, Step: t.step, Weights: t.Weights(), Optimizer: t.State(), Meta: meta}
}

// Resume builds a trainer from a checkpoint written from Checkpoint: it
// trains a copy of the checkpoint's weights and restores its optimiser
// state, so that training continues exactly where it stopped. A checkpoint
// without optimiser state starts fresh moments at its step count.
func Resume(cfg Config, ck *nn.Checkpoint, rng *rand.Rand) (*Trainer, error) {
	if ck == nil || ck.Weights == nil {
		return nil, fmt.Errorf("train: resume: checkpoint without weights")
	}
	t, err := New(cfg, ck.Weights.Clone(), rng)
	if err != nil {
		return nil, err
	}
	if ck.Optimizer == nil {
		if ck.Step < 0 {
			return nil, fmt.Errorf("train: resume: step %d", ck.Step)
		}
		t.step = ck.Step
		return t, nil
	}
	if err := t.Restore(ck.Optimizer); err != nil {
		t.Close()
		return nil, err
	}
	if t.step != ck.Step {
		t.Close()
		return nil, fmt.Errorf("train: resume: checkpoint step %d but optimizer step %d", ck.Step, t.step)
	}
	return t, nil
}
