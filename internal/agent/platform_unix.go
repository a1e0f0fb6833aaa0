//go:build !windows

package agent

// DefaultStateDir is /var/lib/hostgate-agent.
func DefaultStateDir() string { return "/var/lib/hostgate-agent" }

// restrictDir has nothing to add: the directory was created with mode 0700.
func restrictDir(string) error { return nil }

// copyACL has nothing to copy: the new file's mode is 0600.
func copyACL(string, string) error { return nil }
