package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

type benchShape struct {
	name    string
	m, n, k int
	transB  bool // weights stored n x k
}

func benchShapes() []benchShape {
	var s []benchShape
	for _, batch := range []int{1, 8, 32, 128, 256} {
		s = append(s, benchShape{name: fmt.Sprintf("conv3x3/b%d", batch), m: 42 * batch, n: 64, k: 576})
	}
	// Towers of 48, 80 and 96 filters: n not a multiple of the 64-wide tile.
	for _, f := range []int{48, 80, 96} {
		s = append(s, benchShape{name: fmt.Sprintf("conv3x3f%d/b32", f), m: 42 * 32, n: f, k: 9 * f})
	}
	for _, batch := range []int{1, 32, 256} {
		s = append(s, benchShape{name: fmt.Sprintf("stem/b%d", batch), m: 42 * batch, n: 64, k: 18})
		s = append(s, benchShape{name: fmt.Sprintf("head1x1n2/b%d", batch), m: 42 * batch, n: 2, k: 64, transB: true})
		s = append(s, benchShape{name: fmt.Sprintf("head1x1n1/b%d", batch), m: 42 * batch, n: 1, k: 64, transB: true})
		s = append(s, benchShape{name: fmt.Sprintf("fc84x65/b%d", batch), m: batch, n: 65, k: 84, transB: true})
		s = append(s, benchShape{name: fmt.Sprintf("fc2688x7/b%d", batch), m: batch, n: 7, k: 2688, transB: true})
	}
	return s
}

func benchOperands(sh benchShape) (a, b, c []float32) {
	r := rand.New(rand.NewPCG(7, 7))
	return randSlice(r, sh.m*sh.k), randSlice(r, sh.k*sh.n), make([]float32, sh.m*sh.n)
}

func ldb(sh benchShape) int {
	if sh.transB {
		return sh.k
	}
	return sh.n
}

// reportGFLOPS reports the rate in wall-clock time and in the CPU time of
// the benchmark's thread (the machine is shared, so the second is steadier).
func reportGFLOPS(b *testing.B, clk *cpuClock, sh benchShape) {
	flops := 2 * float64(sh.m) * float64(sh.n) * float64(sh.k) * float64(b.N)
	b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	clk.report(b, flops)
}

// BenchmarkSgemm measures Sgemm with the kernel in use on the network's shapes.
func BenchmarkSgemm(b *testing.B) {
	for _, sh := range benchShapes() {
		b.Run(sh.name, func(b *testing.B) {
			a, bb, c := benchOperands(sh)
			b.ReportAllocs()
			clk := startCPUClock(b)
			for b.Loop() {
				Sgemm(false, sh.transB, sh.m, sh.n, sh.k, 1, a, sh.k, bb, ldb(sh), 0, c, sh.n)
			}
			reportGFLOPS(b, clk, sh)
		})
	}
}

// BenchmarkSgemmKernels measures each available kernel on the hot 3x3 shape.
func BenchmarkSgemmKernels(b *testing.B) {
	for _, id := range []kernelID{kernelAVX512, kernelAVX2, kernelGeneric} {
		if !available(id) {
			continue
		}
		for _, batch := range []int{1, 32, 256} {
			sh := benchShape{m: 42 * batch, n: 64, k: 576}
			b.Run(fmt.Sprintf("%s/conv3x3/b%d", kernelNames[id], batch), func(b *testing.B) {
				a, bb, c := benchOperands(sh)
				b.ReportAllocs()
				clk := startCPUClock(b)
				for b.Loop() {
					sgemm(id, nil, false, false, sh.m, sh.n, sh.k, 1, a, sh.k, bb, sh.n, 0, c, sh.n, nil, false)
				}
				reportGFLOPS(b, clk, sh)
			})
		}
	}
}

// BenchmarkSgemmBiasReLU measures the fused epilogue on the hot 3x3 shape.
func BenchmarkSgemmBiasReLU(b *testing.B) {
	for _, batch := range []int{1, 32, 256} {
		sh := benchShape{m: 42 * batch, n: 64, k: 576}
		b.Run(fmt.Sprintf("conv3x3/b%d", batch), func(b *testing.B) {
			a, bb, c := benchOperands(sh)
			bias := make([]float32, sh.n)
			b.ReportAllocs()
			clk := startCPUClock(b)
			for b.Loop() {
				SgemmBiasReLU(sh.m, sh.n, sh.k, a, sh.k, bb, sh.n, bias, true, c, sh.n)
			}
			reportGFLOPS(b, clk, sh)
		})
	}
}

// BenchmarkGonumSgemm measures gonum's pure-Go Sgemm on the same shapes.
func BenchmarkGonumSgemm(b *testing.B) {
	var impl gonum.Implementation
	for _, sh := range benchShapes() {
		b.Run(sh.name, func(b *testing.B) {
			a, bb, c := benchOperands(sh)
			tB := blas.NoTrans
			if sh.transB {
				tB = blas.Trans
			}
			b.ReportAllocs()
			clk := startCPUClock(b)
			for b.Loop() {
				impl.Sgemm(blas.NoTrans, tB, sh.m, sh.n, sh.k, 1, a, sh.k, bb, ldb(sh), 0, c, sh.n)
			}
			reportGFLOPS(b, clk, sh)
		})
	}
}

// BenchmarkFMAPeak measures the FMA throughput of one core: a loop of
// independent FMAs on 12 accumulators, the roofline for the figures above,
// for each vector width the CPU has.
func BenchmarkFMAPeak(b *testing.B) {
	for _, id := range []kernelID{kernelAVX512, kernelAVX2} {
		if !available(id) {
			continue
		}
		b.Run(kernelNames[id], func(b *testing.B) {
			const n = 1 << 16
			var flops float64
			clk := startCPUClock(b)
			for b.Loop() {
				flops += float64(fmaPeak(id, n))
			}
			b.ReportMetric(flops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			clk.report(b, flops)
		})
	}
}

// BenchmarkTune runs the hot 3x3 shape with other blocking parameters.
func BenchmarkTune(b *testing.B) {
	oldMC, oldKC := mcBlk, kcMax
	defer func() { mcBlk, kcMax = oldMC, oldKC }()
	for _, kc := range []int{128, 320, 576} {
		for _, mc := range []int{48} {
			for _, batch := range []int{32, 256} {
				sh := benchShape{m: 42 * batch, n: 64, k: 576}
				b.Run(fmt.Sprintf("kc%d/mc%d/b%d", kc, mc, batch), func(b *testing.B) {
					mcBlk, kcMax = mc, kc
					a, bb, c := benchOperands(sh)
					clk := startCPUClock(b)
					for b.Loop() {
						Sgemm(false, false, sh.m, sh.n, sh.k, 1, a, sh.k, bb, sh.n, 0, c, sh.n)
					}
					reportGFLOPS(b, clk, sh)
				})
			}
		}
	}
}

// BenchmarkPaths compares the dot-product and tiled paths on the fully
// connected shapes (used to pick useDot's thresholds).
func BenchmarkPaths(b *testing.B) {
	defer func() { forcePath = 0 }()
	for _, path := range []int{1, 2} {
		for _, sh := range benchShapes() {
			if !sh.transB {
				continue
			}
			b.Run(fmt.Sprintf("%s/%s", map[int]string{1: "dot", 2: "tiled"}[path], sh.name), func(b *testing.B) {
				forcePath = path
				a, bb, c := benchOperands(sh)
				clk := startCPUClock(b)
				for b.Loop() {
					Sgemm(false, sh.transB, sh.m, sh.n, sh.k, 1, a, sh.k, bb, ldb(sh), 0, c, sh.n)
				}
				reportGFLOPS(b, clk, sh)
			})
		}
	}
}

// BenchmarkTrainingShapes measures the products of a 3x3 convolution's
// forward and backward passes at batch 256 in the layouts gorgonia may use.
func BenchmarkTrainingShapes(b *testing.B) {
	const rows, ch, kk = 42 * 256, 64, 576
	for _, tc := range []struct {
		name           string
		transA, transB bool
		m, n, k        int
	}{
		{"fwdNT", false, true, rows, ch, kk},
		{"dW_TN", true, false, ch, kk, rows},
		{"dW_TT", true, true, kk, ch, rows},
		{"dX_NN", false, false, rows, kk, ch},
		{"dX_NT", false, true, rows, kk, ch},
	} {
		b.Run(tc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			a, bb, c := randSlice(r, tc.m*tc.k), randSlice(r, tc.k*tc.n), make([]float32, tc.m*tc.n)
			lda, ldb := tc.k, tc.n
			if tc.transA {
				lda = tc.m
			}
			if tc.transB {
				ldb = tc.k
			}
			b.ReportAllocs()
			clk := startCPUClock(b)
			for b.Loop() {
				Sgemm(tc.transA, tc.transB, tc.m, tc.n, tc.k, 1, a, lda, bb, ldb, 0, c, tc.n)
			}
			reportGFLOPS(b, clk, benchShape{m: tc.m, n: tc.n, k: tc.k})
		})
	}
}
