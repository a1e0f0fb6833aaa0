//go:build !windows

package store

// modesApply: Unix permission bits are what guard the data files.
const modesApply = true
