// Package winwindow finds a Windows process's top-level windows, for the
// operations that talk to a program through its windows: the process kill
// that asks a program to close first (procops) and the game family's
// quit and close messages (orchestrate). Windows only; elsewhere it is
// empty.
package winwindow
