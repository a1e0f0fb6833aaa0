package procops

// procEntry is one process of the process table (snapshot, per platform).
type procEntry struct {
	PID  int
	PPID int
	// Name is the process name: on Windows the image file name
	// ("notepad.exe"), on Linux the kernel's name for it.
	Name string
	// Exe is the executable's full path; empty when it cannot be read
	// (another user's process, a kernel thread).
	Exe string
	// Dead is set for a process that has ended but is not reaped yet
	// (a Linux zombie): it cannot be killed.
	Dead bool
	// Ident tells the process from a later one with the same pid where
	// the platform needs it: on Linux its start time in clock ticks; on
	// Windows nothing (the kill holds process handles instead).
	Ident uint64
}
