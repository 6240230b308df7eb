//go:build !amd64 || noasm

package gemm

// asmBuild reports a build with the assembly kernels.
const asmBuild = false
