package winops

import (
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// systemTasks drives the host's schtasks.exe, by full path so that PATH
// cannot substitute another program.
func systemTasks() *taskCtl {
	return &taskCtl{
		r:        execRunner{decode: decodeConsole},
		program:  filepath.Join(systemDir(), "schtasks.exe"),
		messages: hostTaskMessages(),
	}
}

func systemDir() string {
	dir, err := windows.GetSystemDirectory()
	if err != nil || dir == "" {
		return `C:\Windows\System32`
	}
	return dir
}

// hideWindow keeps schtasks from flashing a console window when the agent
// runs on a desktop.
func hideWindow(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true}
}

// hostTaskMessages adds the system's own texts for "file not found",
// "path not found" and "access denied", in the host's language, to the
// English ones: schtasks prints these after "ERROR:".
func hostTaskMessages() taskMessages {
	m := taskMessages{
		notFound: append([]string(nil), englishTaskMessages.notFound...),
		denied:   append([]string(nil), englishTaskMessages.denied...),
	}
	for _, e := range []windows.Errno{windows.ERROR_FILE_NOT_FOUND, windows.ERROR_PATH_NOT_FOUND} {
		if s := systemMessage(e); s != "" {
			m.notFound = append(m.notFound, s)
		}
	}
	if s := systemMessage(windows.ERROR_ACCESS_DENIED); s != "" {
		m.denied = append(m.denied, s)
	}
	return m
}

// systemMessage is FormatMessage's text for e in the user's language
// (syscall.Errno.Error asks for English).
func systemMessage(e windows.Errno) string {
	buf := make([]uint16, 512)
	flags := uint32(windows.FORMAT_MESSAGE_FROM_SYSTEM | windows.FORMAT_MESSAGE_IGNORE_INSERTS)
	n, err := windows.FormatMessage(flags, 0, uint32(e), 0, buf, nil)
	if err != nil || n == 0 {
		return ""
	}
	return strings.TrimSpace(windows.UTF16ToString(buf[:n]))
}

// decodeConsole decodes schtasks' output, which is in the console's code
// page when it is not Unicode: the agent's console when it has one, or
// else the OEM code page a new console starts with.
func decodeConsole(b []byte) string {
	return decodeOutput(b, func(b []byte) string {
		cp, err := windows.GetConsoleOutputCP()
		if err != nil || cp == 0 {
			cp = 1 // CP_OEMCP
		}
		return multiByteToString(cp, b)
	})
}

func multiByteToString(cp uint32, b []byte) string {
	n, err := windows.MultiByteToWideChar(cp, 0, &b[0], int32(len(b)), nil, 0)
	if err != nil || n <= 0 {
		return strings.ToValidUTF8(string(b), "\ufffd")
	}
	u := make([]uint16, n)
	if _, err := windows.MultiByteToWideChar(cp, 0, &b[0], int32(len(b)), &u[0], n); err != nil {
		return strings.ToValidUTF8(string(b), "\ufffd")
	}
	return windows.UTF16ToString(u)
}
