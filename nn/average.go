package nn

import (
	"errors"
	"fmt"
)

// AverageWeights returns the element-wise mean of networks of one
// configuration and shape: every tensor, the batch normalisations' running
// means and variances included (their mean stands in for statistics
// recomputed on data, which is close when the networks are nearby
// checkpoints of one run). Averaging the last checkpoints of a run is
// Polyak averaging over the run's end (Izmailov et al. 2018, "Averaging
// Weights Leads to Wider Optima and Better Generalization", call it SWA).
func AverageWeights(ws []*Weights) (*Weights, error) {
	if len(ws) == 0 {
		return nil, errors.New("nn: no networks to average")
	}
	first := ws[0]
	for i, w := range ws {
		if w == nil {
			return nil, fmt.Errorf("nn: network %d of %d is missing", i+1, len(ws))
		}
		if w.Config != first.Config {
			return nil, fmt.Errorf("nn: network %d of %d has config %+v, the first %+v", i+1, len(ws), w.Config, first.Config)
		}
		if w.Shape != first.Shape {
			mine, theirs := w.Shape.Diff(first.Shape)
			return nil, fmt.Errorf("nn: network %d of %d has %s, the first %s", i+1, len(ws), mine, theirs)
		}
	}
	avg := allocate(first.Config, first.Shape)
	dst := avg.Tensors()
	sum := make([][]float64, len(dst))
	for i := range dst {
		sum[i] = make([]float64, len(dst[i].Data))
	}
	for _, w := range ws {
		// One config and shape: the same tensors, in the same order.
		src := w.Tensors()
		for i := range src {
			for j, v := range src[i].Data {
				sum[i][j] += float64(v)
			}
		}
	}
	n := float64(len(ws))
	for i := range dst {
		for j := range dst[i].Data {
			dst[i].Data[j] = float32(sum[i][j] / n)
		}
	}
	return avg, nil
}
