package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkBF16Peak measures the VDPBF16PS throughput of one core the way
// BenchmarkFMAPeak measures the FMA's: 12 independent accumulators, each
// instruction 16 lanes x 2 multiply-adds (64 FLOP).
func BenchmarkBF16Peak(b *testing.B) { benchLowPeak(b, true) }

// BenchmarkVNNIPeak measures the VPDPBUSD throughput of one core: 12
// independent accumulators, each instruction 16 lanes x 4 multiply-adds (128
// integer operations, reported as GFLOP/s for comparison).
func BenchmarkVNNIPeak(b *testing.B) { benchLowPeak(b, false) }

// BenchmarkAVX2Int8Peak measures the multiply throughput of the AVX2 int8
// kernel on one core: 12 independent VPMADDUBSW (ymm, 32 uint8 x int8
// products summed in pairs), each followed by its VPMADDWD (the pairs
// summed): 64 integer operations a pair of instructions.
func BenchmarkAVX2Int8Peak(b *testing.B) {
	if !HasAVX2Int8Kernel() {
		b.Skip("no AVX2 on this CPU or build")
	}
	prev, _ := ForceLowPrecision("avx2")
	defer ForceLowPrecision(prev)
	benchLowPeakRun(b, false)
}

func benchLowPeak(b *testing.B, bf16 bool) {
	if !HasLowPrecisionKernels() {
		b.Skip("no AVX512_BF16/VNNI kernels on this CPU or build")
	}
	prev, _ := ForceLowPrecision("avx512")
	defer ForceLowPrecision(prev)
	benchLowPeakRun(b, bf16)
}

func benchLowPeakRun(b *testing.B, bf16 bool) {
	const n = 1 << 16
	var ops float64
	clk := startCPUClock(b)
	for b.Loop() {
		ops += float64(lowPeak(bf16, n))
	}
	b.ReportMetric(ops/b.Elapsed().Seconds()/1e9, "GFLOP/s")
	clk.report(b, ops)
}

// BenchmarkLowGemm measures the bf16 and int8 products, and FP32 beside
// them, on the tower's 3x3 convolution (m = 42 x batch, n = 64, k = 576)
// with bias and ReLU, for each kernel available.
func BenchmarkLowGemm(b *testing.B) {
	prev := LowPrecisionKernel()
	defer ForceLowPrecision(prev)
	kerns := []string{"generic"}
	if HasLowPrecisionKernels() {
		kerns = []string{"avx512"}
	} else if HasAVX2Int8Kernel() {
		kerns = []string{"avx2"}
	}
	for _, kern := range kerns {
		for _, batch := range []int{1, 8, 32, 256} {
			sh := benchShape{m: 42 * batch, n: 64, k: 576}
			r := rand.New(rand.NewPCG(7, 7))
			a, bb, c := randSlice(r, sh.m*sh.k), randSlice(r, sh.k*sh.n), make([]float32, sh.m*sh.n)
			bias := make([]float32, sh.n)
			var ws Workspace
			b.Run(fmt.Sprintf("fp32/conv3x3/b%d", batch), func(b *testing.B) {
				clk := startCPUClock(b)
				for b.Loop() {
					ws.SgemmBiasReLU(sh.m, sh.n, sh.k, a, sh.k, bb, sh.n, bias, true, c, sh.n)
				}
				reportGFLOPS(b, clk, sh)
			})
			b.Run(fmt.Sprintf("bf16-%s/conv3x3/b%d", kern, batch), func(b *testing.B) {
				ForceLowPrecision(kern)
				pb := PackBF16(bb, sh.k, sh.n, sh.n, false)
				ab := make([]uint16, len(a))
				ConvertBF16(ab, a)
				clk := startCPUClock(b)
				for b.Loop() {
					ws.GemmBF16(sh.m, ab, sh.k, pb, false, bias, true, c, sh.n)
				}
				reportGFLOPS(b, clk, sh)
			})
			b.Run(fmt.Sprintf("int8-%s/conv3x3/b%d", kern, batch), func(b *testing.B) {
				ForceLowPrecision(kern)
				pi := PackInt8(bb, sh.k, sh.n, sh.n, false)
				aq := make([]uint8, len(a))
				QuantizeU8(aq, a, 1.0/255)
				clk := startCPUClock(b)
				for b.Loop() {
					ws.GemmInt8(sh.m, aq, sh.k, 1.0/255, pi, false, bias, true, c, sh.n)
				}
				reportGFLOPS(b, clk, sh)
			})
		}
	}
}
