package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"hostgate/internal/agentproto"
)

// Portable helpers of the System implementations, kept here so that they
// are tested on every platform.

// writeFileAtomic replaces path with data as agentproto.WriteFileAtomic
// does: a temporary file (mode 0600) in the same directory, prepared by
// prepare (e.g. to set its ACL before any byte is written), written,
// synced and renamed over path.
func writeFileAtomic(path string, data []byte, prepare func(tmp string) error) error {
	return agentproto.WriteFileAtomic(path, data, prepare)
}

// copyFile installs src at dst through a temporary file and a rename.
// Nothing is done when dst is src itself or already has the same content
// (a template image carries the executable at its install path).
func copyFile(src, dst string) error {
	si, err := os.Stat(src)
	if err != nil {
		return err
	}
	if di, err := os.Stat(dst); err == nil {
		if os.SameFile(si, di) {
			return nil
		}
		if si.Size() == di.Size() {
			if same, err := sameContent(src, dst); err == nil && same {
				return nil
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, err = io.Copy(f, in)
	if err == nil {
		err = f.Chmod(0o755)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp, dst)
}

func sameContent(a, b string) (bool, error) {
	ha, err := fileSHA256(a)
	if err != nil {
		return false, err
	}
	hb, err := fileSHA256(b)
	if err != nil {
		return false, err
	}
	return bytes.Equal(ha, hb), nil
}

func fileSHA256(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// quoteArg quotes s for a Windows command line as CommandLineToArgvW
// parses it: backslashes are literal except before a double quote, where
// they are doubled along with escaping the quote.
func quoteArg(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\v\"") {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	slashes := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			slashes++
			b.WriteByte(c)
		case '"':
			b.WriteString(strings.Repeat(`\`, slashes+1))
			b.WriteByte(c)
			slashes = 0
		default:
			slashes = 0
			b.WriteByte(c)
		}
	}
	b.WriteString(strings.Repeat(`\`, slashes)) // before the closing quote
	b.WriteByte('"')
	return b.String()
}

// commandLine joins args, each quoted with quoteArg.
func commandLine(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = quoteArg(a)
	}
	return strings.Join(q, " ")
}

// taskXML is the Task Scheduler definition of the logon worker task,
// encoded as schtasks /XML wants it: UTF-16LE with a byte order mark. It
// starts at the logon of any user (BUILTIN\Users), in that user's session,
// with the highest privileges available, without a time limit.
func taskXML(spec TaskSpec) []byte {
	esc := func(s string) string {
		var b bytes.Buffer
		_ = xml.EscapeText(&b, []byte(s))
		return b.String()
	}
	doc := `<?xml version="1.0" encoding="UTF-16"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo>
    <Description>` + esc(spec.Description) + `</Description>
  </RegistrationInfo>
  <Triggers>
    <LogonTrigger>
      <Enabled>true</Enabled>
    </LogonTrigger>
  </Triggers>
  <Principals>
    <Principal id="Author">
      <GroupId>S-1-5-32-545</GroupId>
      <RunLevel>HighestAvailable</RunLevel>
    </Principal>
  </Principals>
  <Settings>
    <MultipleInstancesPolicy>IgnoreNew</MultipleInstancesPolicy>
    <DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>
    <StopIfGoingOnBatteries>false</StopIfGoingOnBatteries>
    <AllowHardTerminate>true</AllowHardTerminate>
    <StartWhenAvailable>true</StartWhenAvailable>
    <ExecutionTimeLimit>PT0S</ExecutionTimeLimit>
    <RestartOnFailure>
      <Interval>PT1M</Interval>
      <Count>999</Count>
    </RestartOnFailure>
    <Enabled>true</Enabled>
  </Settings>
  <Actions Context="Author">
    <Exec>
      <Command>` + esc(spec.ExePath) + `</Command>
      <Arguments>` + esc(commandLine(spec.Args)) + `</Arguments>
    </Exec>
  </Actions>
</Task>
`
	doc = strings.ReplaceAll(doc, "\n", "\r\n")
	u := utf16.Encode([]rune(doc))
	out := make([]byte, 2, 2+2*len(u))
	out[0], out[1] = 0xFF, 0xFE
	for _, c := range u {
		out = append(out, byte(c), byte(c>>8))
	}
	return out
}

// schtasksArgs are the arguments of schtasks.exe creating (or, with /F,
// replacing) the task from the XML file.
func schtasksArgs(name, xmlPath string) []string {
	return []string{"/Create", "/F", "/TN", name, "/XML", xmlPath}
}

// firewallArgs are the arguments of netsh.exe adding the inbound rule.
func firewallArgs(rule FirewallRule) []string {
	return []string{"advfirewall", "firewall", "add", "rule", "name=" + rule.Name,
		"dir=in", "action=allow", "protocol=TCP", "localport=" + strconv.Itoa(rule.Port)}
}

// firewallDeleteArgs remove earlier rules of the same name, so a repeated
// run does not add a duplicate.
func firewallDeleteArgs(rule FirewallRule) []string {
	return []string{"advfirewall", "firewall", "delete", "rule", "name=" + rule.Name}
}

// toolError describes a failed external tool run with its output.
func toolError(tool string, err error, output []byte) error {
	msg := strings.Join(strings.Fields(string(output)), " ")
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	if msg == "" {
		return fmt.Errorf("%s: %w", tool, err)
	}
	return fmt.Errorf("%s: %w: %s", tool, err, msg)
}
