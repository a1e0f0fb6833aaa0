package agentproto

// Terminal sessions over streams (protocol 2). The hub opens a stream
// (package streams) whose metadata is a StreamMeta; the agent starts the
// terminal and copies its output to the stream and the stream to its
// input. Output ends (the agent's EOF) when the shell exits; closing the
// stream ends the shell. A resize is a command on the text channel naming
// the stream, so it never waits behind terminal data.

import "hostgate/internal/clip"

// StreamKindPTY is StreamMeta.Kind for an interactive terminal.
const StreamKindPTY = "pty"

// MaxTermSize bounds a terminal dimension in character cells.
const MaxTermSize = 65535

// StreamMeta is the metadata of a stream the hub opens, as JSON:
//
//	{"kind":"pty","cols":80,"rows":24,"command":["/bin/bash","-l"]}
//
// Cols and Rows 0 mean the agent's default (80×24); an empty Command
// means the host's default shell.
type StreamMeta struct {
	Kind    string   `json:"kind"`
	Cols    int      `json:"cols,omitempty"`
	Rows    int      `json:"rows,omitempty"`
	Command []string `json:"command,omitempty"`
}

// Validate checks the kind and the size.
func (m StreamMeta) Validate() error {
	if m.Kind != StreamKindPTY {
		return ArgsError("unknown stream kind %q", clip.String(m.Kind, 32))
	}
	if m.Cols < 0 || m.Rows < 0 || m.Cols > MaxTermSize || m.Rows > MaxTermSize {
		return ArgsError("cols and rows must be 0..%d", MaxTermSize)
	}
	return nil
}

// OpShellResize resizes the terminal of a stream on the connection the
// command arrives on (args ShellResize, result {}). Error codes:
// invalid_args, and unknown_stream when no terminal is bound to the stream
// (it has ended, or was never opened).
const OpShellResize = "shell.resize"

// CodeUnknownStream answers a command naming a stream that has no
// terminal on the connection.
const CodeUnknownStream = "unknown_stream"

// ShellResize is the argument of OpShellResize.
type ShellResize struct {
	StreamID uint32 `json:"stream_id"`
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
}

// Validate checks the stream id and the size.
func (r ShellResize) Validate() error {
	if r.StreamID == 0 {
		return ArgsError("stream_id is required")
	}
	if r.Cols < 1 || r.Rows < 1 || r.Cols > MaxTermSize || r.Rows > MaxTermSize {
		return ArgsError("cols and rows must be 1..%d", MaxTermSize)
	}
	return nil
}

// TerminalExit is the reason of the CLOSE (code 0) that ends a terminal
// stream after its EOF, as JSON: {"exit_code":0}. ExitCode is the shell's
// exit status, -1 when it was killed (by a signal, or by the agent's idle
// timeout). A CLOSE with an empty reason (from an older agent, or a
// stream the hub closed) says nothing about the exit.
type TerminalExit struct {
	ExitCode int `json:"exit_code"`
}
