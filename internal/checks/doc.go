// Package checks holds module-wide tests of the code's shape: which
// packages may import what. It has no code of its own.
package checks
