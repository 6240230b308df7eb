//go:build !amd64 || noasm

package train

// Without AVX assembly every channel of the batch normalisation and of the
// global-pooling block's passes stays with the Go loops.

func bnStatsFast(s1, s2 []float64, k, y []float32, rows, ld, c int) int { return 0 }

func bnApplyFast(y, res, out []float32, rows, ld, c int, sc, sh []float32, relu bool) int { return 0 }

func bnBackSumsFast(s1, s2 []float64, y, out, g, mu, inv []float32, rows, ld, c int) int { return 0 }

func bnBackApplyFast(dy, g, y, ga, gb, gc []float32, rows, ld, c int) int { return 0 }

func reluMaskSumFast(grad, out, sum []float32, rows, ld, c int) int { return 0 }
