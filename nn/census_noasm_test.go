//go:build !amd64 || noasm

package nn

// asmBuild reports a build with the assembly kernels.
const asmBuild = false
