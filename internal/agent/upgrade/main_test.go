package upgrade

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// helperVersion is what this test binary answers to "version" when the
// tests run a copy of it as a stand-in agent executable.
const helperVersion = "9.9.9-test"

// TestMain lets a copy of the test binary act as an agent executable:
// "version" prints the agent's version line (or, for a copy whose name
// contains "notagent", something else) and "sleep" runs until stdin is
// closed, so a test can hold the file busy as a running program.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 {
		switch os.Args[1] {
		case "version":
			if strings.Contains(filepath.Base(os.Args[0]), "notagent") {
				fmt.Println("hello from some other program")
			} else {
				fmt.Printf("hostgate-agent %s (%s, %s/%s)\n", helperVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			}
			os.Exit(0)
		case "sleep":
			fmt.Println("sleeping")
			done := make(chan struct{})
			go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(done) }()
			select {
			case <-done:
			case <-time.After(2 * time.Minute):
			}
			os.Exit(0)
		}
	}
	os.Exit(m.Run())
}

// exeName is name with the platform's executable suffix.
func exeName(name string) string { return name + exeSuffix }

// selfCopy copies this test binary to dir/name (plus the suffix) and
// returns the path.
func selfCopy(t testing.TB, dir, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, exeName(name))
	if err := os.WriteFile(path, b, 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// assertContent fails unless path holds want.
func assertContent(t testing.TB, path string, want []byte) {
	t.Helper()
	if got := readFile(t, path); !bytes.Equal(got, want) {
		t.Errorf("%s holds %d bytes %q…, want %d bytes %q…", filepath.Base(path), len(got), head(got), len(want), head(want))
	}
}

func head(b []byte) []byte { return b[:min(len(b), 16)] }

// dirNames lists the names in dir.
func dirNames(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
