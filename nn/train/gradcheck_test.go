package train

// centralDiff returns the central finite difference (f(x+h) - f(x-h)) / 2h
// of f at x = v[k]: f is called with v[k] moved up, then down, and v[k] is
// restored.
func centralDiff(v []float32, k int, h float32, f func() float64) float64 {
	old := v[k]
	v[k] = old + h
	up := f()
	v[k] = old - h
	down := f()
	v[k] = old
	return (up - down) / (2 * float64(h))
}
