//go:build !linux

package agentgw

// watch reports that sockets cannot be watched here: each is read by a
// goroutine of its own (readBlocking).
func watch(*session) bool { return false }
