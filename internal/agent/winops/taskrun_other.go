//go:build !windows

package winops

import "os/exec"

// systemTasks: there is no Task Scheduler outside Windows.
func systemTasks() *taskCtl { return nil }

func hideWindow(*exec.Cmd) {}
