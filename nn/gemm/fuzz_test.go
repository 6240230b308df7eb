package gemm

import (
	"math/rand/v2"
	"testing"
)

// FuzzSgemm checks every available kernel against the float64 reference on
// fuzzed shapes, strides, flags and scalars.
func FuzzSgemm(f *testing.F) {
	f.Add(uint8(7), uint8(65), uint8(129), uint8(1), uint8(3), int8(2), int8(-3), uint64(1))
	f.Add(uint8(1), uint8(1), uint8(1), uint8(0), uint8(0), int8(1), int8(0), uint64(2))
	f.Add(uint8(13), uint8(7), uint8(200), uint8(2), uint8(12), int8(-1), int8(1), uint64(3))
	f.Fuzz(func(t *testing.T, m, n, k, pad, bits uint8, alpha, beta int8, seed uint64) {
		tc := gemmCase{
			transA: bits&1 != 0, transB: bits&2 != 0, bias: bits&4 != 0, relu: bits&8 != 0,
			m: int(m), n: int(n), k: int(k), pad: int(pad % 8),
			alpha: float32(alpha) / 4, beta: float32(beta) / 4,
		}
		r := rand.New(rand.NewPCG(seed, 0))
		for _, id := range kernelsToTest(t) {
			runCase(t, r, id, nil, tc)
		}
	})
}
