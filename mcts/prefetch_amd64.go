package mcts

import "unsafe"

// prefetch asks the CPU to bring the n bytes at p into its caches, without
// waiting for them (prefetch_amd64.s). The tree's walk is a chain of
// dependent loads, and between two visits to a self-play game's tree the
// network's batch has pushed it out of the core's caches.
//
//go:noescape
func prefetch(p unsafe.Pointer, n uintptr)
