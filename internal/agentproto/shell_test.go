package agentproto

import "testing"

func TestShellValidate(t *testing.T) {
	tests := []struct {
		name string
		give interface{ Validate() error }
		ok   bool
	}{
		{"meta default size", StreamMeta{Kind: StreamKindPTY}, true},
		{"meta with command", StreamMeta{Kind: StreamKindPTY, Cols: 80, Rows: 24, Command: []string{"/bin/sh"}}, true},
		{"meta unknown kind", StreamMeta{Kind: "tcp"}, false},
		{"meta negative", StreamMeta{Kind: StreamKindPTY, Cols: -1}, false},
		{"meta too wide", StreamMeta{Kind: StreamKindPTY, Cols: MaxTermSize + 1, Rows: 24}, false},
		{"resize", ShellResize{StreamID: 1, Cols: 100, Rows: 40}, true},
		{"resize no stream", ShellResize{Cols: 100, Rows: 40}, false},
		{"resize zero size", ShellResize{StreamID: 1}, false},
		{"resize too tall", ShellResize{StreamID: 1, Cols: 1, Rows: MaxTermSize + 1}, false},
	}
	for _, tt := range tests {
		if err := tt.give.Validate(); (err == nil) != tt.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", tt.name, err, tt.ok)
		}
	}
}

func TestHasStreams(t *testing.T) {
	if HasStreams(1) || !HasStreams(MinStreams) || !HasStreams(Version) {
		t.Errorf("HasStreams: got 1→%v %d→%v, want false, true", HasStreams(1), MinStreams, HasStreams(MinStreams))
	}
}
