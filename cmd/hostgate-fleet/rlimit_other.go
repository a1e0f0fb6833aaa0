//go:build !unix

package main

// raiseFileLimit has nothing to raise here.
func raiseFileLimit() (uint64, error) { return 1 << 20, nil }
