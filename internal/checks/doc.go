// Package checks holds module-wide tests of the code's shape: which
// packages may import what, and that every command answers -version. It
// has no code of its own.
package checks
