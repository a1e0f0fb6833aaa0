// Package verifyparity holds the tests that the Go, Python and TypeScript
// SDKs' webhook verifiers give the same verdict for every input: the shared
// corpus sdk/testdata/verify, and FuzzVerifierParity. It is a package of its
// own so that fuzzing builds only the Go SDK, not the hub its other tests
// start.
package verifyparity
