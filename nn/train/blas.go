package train

import (
	"fmt"

	"gonum.org/v1/gonum/blas/gonum"
	G "gorgonia.org/gorgonia"

	"tabula/nn/gemm/gonumblas"
)

// BLAS names accepted by UseBLAS.
const (
	BLASGonum  = "gonum"  // gonum's pure-Go BLAS, gorgonia's default
	BLASTabula = "tabula" // gonum's BLAS with Sgemm from package nn/gemm
)

// UseBLAS sets the BLAS every gorgonia graph in the process multiplies
// matrices with: "tabula" (our SGEMM, several times faster) or "gonum".
// The setting is global to gorgonia: call it once, at start-up, before any
// Trainer runs; it must not change while a Trainer steps.
func UseBLAS(name string) error {
	switch name {
	case BLASGonum:
		G.Use(gonum.Implementation{})
	case BLASTabula:
		G.Use(gonumblas.Implementation{})
	default:
		return fmt.Errorf("train: blas %q, want %q or %q", name, BLASTabula, BLASGonum)
	}
	return nil
}
