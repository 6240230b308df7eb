// Package layering holds the test that keeps the module's imports in the
// directions docs/architecture.md allows; it has no code of its own.
package layering
