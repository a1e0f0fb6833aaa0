package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// osConsole is the process's own terminal: stdin and stdout.
type osConsole struct{}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func (osConsole) IsTerminal() bool { return isTerminal(os.Stdin) && isTerminal(os.Stdout) }

func (osConsole) Size() (cols, rows int, err error) { return term.GetSize(int(os.Stdout.Fd())) }

func (osConsole) In() io.Reader  { return os.Stdin }
func (osConsole) Out() io.Writer { return os.Stdout }

// makeRawStdin puts stdin in raw mode.
func makeRawStdin() (restore func(), err error) {
	fd := int(os.Stdin.Fd())
	old, err := term.MakeRaw(fd)
	if err != nil {
		return nil, err
	}
	return func() { _ = term.Restore(fd, old) }, nil
}
