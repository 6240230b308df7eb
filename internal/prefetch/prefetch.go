// Package prefetch asks the CPU to bring memory into its caches ahead of
// use. Where a hot path chases pointers into memory that has left the
// core's caches (a search tree between two visits, a table of 2^18 cached
// evaluations), a prefetch issued while other work runs hides the wait.
// It is a hint: it neither waits for the memory nor faults on a bad
// address, and where no instruction for it is written it does nothing.
package prefetch
