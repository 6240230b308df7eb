package gemm

import (
	"os"
	"testing"

	"tabula/internal/kernelcensus"
)

// census records the kernels whose results the tests checked; TestMain
// prints them and fails the run if a kernel this CPU supports was left out.
var census = kernelcensus.New("tabula/nn/gemm", asmBuild,
	kernelcensus.Kernel{Family: "sgemm", Name: "generic"},
	kernelcensus.Kernel{Family: "sgemm", Name: "avx2", Asm: true, Needs: []kernelcensus.Feature{kernelcensus.AVX2, kernelcensus.FMA}},
	kernelcensus.Kernel{Family: "sgemm", Name: "avx512", Asm: true, Needs: []kernelcensus.Feature{kernelcensus.AVX512F}},
	kernelcensus.Kernel{Family: "lowp", Name: "generic"},
	kernelcensus.Kernel{Family: "lowp", Name: "avx2", Asm: true, Needs: []kernelcensus.Feature{kernelcensus.AVX2}},
	kernelcensus.Kernel{Family: "lowp", Name: "avx512", Asm: true, Needs: []kernelcensus.Feature{
		kernelcensus.AVX512F, kernelcensus.AVX512BW, kernelcensus.AVX512BF16, kernelcensus.AVX512VNNI}},
)

func TestMain(m *testing.M) { os.Exit(census.Finish(os.Stdout, m.Run())) }
