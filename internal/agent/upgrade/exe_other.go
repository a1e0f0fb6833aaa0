//go:build !windows

package upgrade

// exeSuffix ends a staged download's name; nothing is needed here.
const exeSuffix = ""

// runningExeLocked is false: a rename may replace a running executable.
const runningExeLocked = false

// retryAttempts is 1: a failed rename or delete does not get better by
// waiting.
const retryAttempts = 1
