// Command fake stands in for a game server process in the orchestrate
// tests (Linux). Its behaviour comes from fake.json beside its
// executable: {"mode": "term" | "hup" | "stubborn" | "controller", "log":
// path}. It appends one JSON line per event to the log: its start (with
// pid, session, working directory, arguments and kernel start time), each
// signal, and its exit.
//
//   - term exits on SIGTERM (the quit message);
//   - hup ignores SIGTERM and exits on SIGHUP (the window close);
//   - stubborn ignores both and only dies by SIGKILL;
//   - controller idles and, like a real controller, restarts any child
//     that logs its exit while the controller runs.
package main

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

type config struct {
	Mode string `json:"mode"`
	Log  string `json:"log"`
}

// Event is one line of the log.
type Event struct {
	Event      string   `json:"event"` // start, signal, exit
	Exe        string   `json:"exe"`
	PID        int      `json:"pid"`
	SID        int      `json:"sid,omitempty"`
	Cwd        string   `json:"cwd,omitempty"`
	Args       []string `json:"args,omitempty"`
	StartTicks uint64   `json:"start_ticks,omitempty"`
	Signal     string   `json:"signal,omitempty"`
	Mode       string   `json:"mode,omitempty"`
}

var cfg config

func main() {
	exe, _ := os.Executable()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(exe), "fake.json"))
	if err != nil || json.Unmarshal(b, &cfg) != nil {
		os.Exit(3)
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP)
	sid, ticks := selfStat()
	cwd, _ := os.Getwd()
	logEvent(Event{Event: "start", Exe: exe, PID: os.Getpid(), SID: sid, Cwd: cwd, Args: os.Args[1:],
		StartTicks: ticks, Mode: cfg.Mode})
	if cfg.Mode == "controller" {
		go respawn()
	}
	for s := range sigs {
		logEvent(Event{Event: "signal", Exe: exe, PID: os.Getpid(), Signal: s.String()})
		if (cfg.Mode == "term" && s == syscall.SIGTERM) || (cfg.Mode == "hup" && s == syscall.SIGHUP) {
			logEvent(Event{Event: "exit", Exe: exe, PID: os.Getpid(), Args: os.Args[1:]})
			os.Exit(0)
		}
	}
}

func logEvent(e Event) {
	b, _ := json.Marshal(e)
	f, err := os.OpenFile(cfg.Log, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	_, _ = f.Write(append(b, '\n'))
	_ = f.Close()
}

// selfStat reads this process's session id (/proc/self/stat field 6) and
// start time in clock ticks after boot (field 22): when the parent forked
// it, whatever the Go runtime's start-up took.
func selfStat() (int, uint64) {
	b, _ := os.ReadFile("/proc/self/stat")
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	sid, _ := strconv.Atoi(f[3])
	ticks, _ := strconv.ParseUint(f[19], 10, 64)
	return sid, ticks
}

// respawn restarts every child that logs its exit.
func respawn() {
	seen := 0
	for range time.Tick(20 * time.Millisecond) {
		f, err := os.Open(cfg.Log)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		n := 0
		for sc.Scan() {
			n++
			if n <= seen {
				continue
			}
			seen = n
			var e Event
			if json.Unmarshal(sc.Bytes(), &e) == nil && e.Event == "exit" {
				cmd := exec.Command(e.Exe, e.Args...)
				cmd.Dir = filepath.Dir(e.Exe)
				cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
				if cmd.Start() == nil {
					go func() { _ = cmd.Wait() }()
				}
			}
		}
		_ = f.Close()
	}
}
