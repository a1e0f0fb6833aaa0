// Package fuzzcheck holds the test that keeps the fuzz targets of
// docs/fuzzing.md real (battery T64): every target the page lists exists
// with committed seeds, every target in the tree is listed, and each kind
// of input the reliability battery names has a target. It has no code of
// its own.
package fuzzcheck
