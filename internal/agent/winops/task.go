package winops

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf8"

	"hostgate/internal/agentproto"
)

// Scheduled tasks go through schtasks.exe. Only its XML output is parsed,
// since the LIST and CSV formats follow the host's display language (the
// column names, "Ready", dates). The XML carries the definition and the
// enabled flag but not the run-time state, so a task's state is reported
// as "disabled" or "unknown" and last/next run times are not reported.

// maxTaskName bounds a task path in characters.
const maxTaskName = 512

// maxErrorText bounds the schtasks error text quoted in a message.
const maxErrorText = 1000

// cmdOutput is what a finished program printed and its exit code.
type cmdOutput struct {
	Stdout, Stderr string
	ExitCode       int
}

// runner runs a program to completion. It returns an error only when the
// program could not run or ctx ended; a non-zero exit is in cmdOutput.
type runner interface {
	run(ctx context.Context, program string, args ...string) (cmdOutput, error)
}

// taskMessages are texts that identify schtasks errors in the host's
// language.
type taskMessages struct {
	notFound []string
	denied   []string
}

// taskCtl carries out SCHEDULED_TASK_CTL through schtasks.
type taskCtl struct {
	r        runner
	program  string // schtasks.exe's full path
	tempDir  string // for the XML file of create; "" is the system's
	messages taskMessages
}

// newTaskHandler returns the SCHEDULED_TASK_CTL handler; a nil ctl (no
// Task Scheduler on this platform) answers unsupported_platform after
// validating.
func newTaskHandler(ctl *taskCtl) Handler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var d agentproto.TaskData
		name, err := decodeArgs(agentproto.CtlScheduledTaskCtl, raw, &d)
		if err != nil {
			return nil, err
		}
		if err := checkTaskData(name, d); err != nil {
			return nil, err
		}
		if ctl == nil {
			return nil, agentproto.UnsupportedPlatform(agentproto.OpName(agentproto.CtlScheduledTaskCtl), runtime.GOOS)
		}
		return ctl.do(ctx, name, d)
	}
}

// checkTaskData refuses task names schtasks would misread (a leading "-"
// or "/" reads as a switch) or that Task Scheduler forbids, and a create
// whose XML is not a task definition.
func checkTaskData(name string, d agentproto.TaskData) error {
	if d.Action == agentproto.TaskList {
		return nil
	}
	if err := checkTaskName(name); err != nil {
		return err
	}
	if d.Action == agentproto.TaskCreate {
		return checkTaskXML(d.XML)
	}
	return nil
}

func checkTaskName(name string) error {
	bad := utf8.RuneCountInString(name) > maxTaskName || hasControlChar(name) ||
		strings.ContainsAny(name, `/:*?"<>|`) || strings.HasPrefix(name, "-")
	if !bad {
		for i, part := range strings.Split(name, `\`) {
			if (part == "" && i > 0) || part == "." || part == ".." || strings.TrimSpace(part) != part {
				bad = true
			}
		}
	}
	if bad || strings.Trim(name, `\`) == "" {
		return agentproto.ArgsError(`path must be a task name such as \folder\task: at most %d characters, no / : * ? " < > | and no empty parts`, maxTaskName)
	}
	return nil
}

func (c *taskCtl) do(ctx context.Context, name string, d agentproto.TaskData) (any, error) {
	switch d.Action {
	case agentproto.TaskList:
		tasks, err := c.list(ctx)
		if err != nil {
			return nil, err
		}
		return agentproto.TaskResult{Tasks: tasks}, nil
	case agentproto.TaskQuery:
		return c.result(c.query(ctx, name, true))
	case agentproto.TaskCreate:
		if err := c.create(ctx, name, d.XML); err != nil {
			return nil, err
		}
	case agentproto.TaskDelete:
		info, err := c.query(ctx, name, false)
		if err != nil {
			return nil, err
		}
		if _, err := c.schtasks(ctx, "/Delete", "/TN", name, "/F"); err != nil {
			return nil, err
		}
		return agentproto.TaskResult{Task: &info}, nil
	default:
		if _, err := c.schtasks(ctx, changeArgs(d.Action, name)...); err != nil {
			return nil, err
		}
	}
	return c.result(c.query(ctx, name, false))
}

// changeArgs are the schtasks arguments of run, end, enable and disable.
func changeArgs(action, name string) []string {
	switch action {
	case agentproto.TaskRun:
		return []string{"/Run", "/TN", name}
	case agentproto.TaskEnd:
		return []string{"/End", "/TN", name}
	case agentproto.TaskEnable:
		return []string{"/Change", "/TN", name, "/ENABLE"}
	}
	return []string{"/Change", "/TN", name, "/DISABLE"}
}

func (c *taskCtl) result(info agentproto.TaskInfo, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return agentproto.TaskResult{Task: &info}, nil
}

// list reads every task's definition in one schtasks run.
func (c *taskCtl) list(ctx context.Context) ([]agentproto.TaskInfo, error) {
	out, err := c.schtasks(ctx, "/Query", "/XML", "ONE")
	if err != nil {
		return nil, err
	}
	entries, err := parseTasks(out.Stdout)
	if err != nil {
		return nil, codeError(CodeTaskFailed, "schtasks /Query: %v", err)
	}
	tasks := make([]agentproto.TaskInfo, 0, len(entries))
	for _, e := range entries {
		if e.Name != "" {
			tasks = append(tasks, taskInfo(e))
		}
	}
	return tasks, nil
}

// query reads one task's definition, with its XML when withXML.
func (c *taskCtl) query(ctx context.Context, name string, withXML bool) (agentproto.TaskInfo, error) {
	out, err := c.schtasks(ctx, "/Query", "/TN", name, "/XML")
	if err != nil {
		return agentproto.TaskInfo{}, err
	}
	entries, err := parseTasks(out.Stdout)
	if err != nil {
		return agentproto.TaskInfo{}, codeError(CodeTaskFailed, "schtasks /Query: %v", err)
	}
	if len(entries) == 0 {
		return agentproto.TaskInfo{}, codeError(CodeTaskFailed, "schtasks /Query printed no task definition for %s", name)
	}
	e := entries[0]
	if !strings.HasPrefix(e.Name, `\`) {
		e.Name = name
	}
	info := taskInfo(e)
	if withXML {
		info.XML = strings.TrimSpace(strings.TrimPrefix(out.Stdout, "\ufeff"))
	}
	return info, nil
}

func taskInfo(e taskEntry) agentproto.TaskInfo {
	state := "unknown"
	if !e.Enabled {
		state = "disabled"
	}
	return agentproto.TaskInfo{Name: e.Name, Enabled: e.Enabled, State: state}
}

// create registers the task from its XML, replacing one of that name.
func (c *taskCtl) create(ctx context.Context, name, text string) error {
	dir, err := os.MkdirTemp(c.tempDir, "hostgate-task-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "task.xml")
	if err := os.WriteFile(file, taskFile(text), 0o600); err != nil {
		return fmt.Errorf("write task XML: %w", err)
	}
	_, err = c.schtasks(ctx, "/Create", "/TN", name, "/XML", file, "/F")
	return err
}

// schtasks runs schtasks.exe; a non-zero exit becomes an error coded by
// what schtasks printed.
func (c *taskCtl) schtasks(ctx context.Context, args ...string) (cmdOutput, error) {
	out, err := c.r.run(ctx, c.program, args...)
	if err != nil {
		return out, fmt.Errorf("run schtasks %s: %w", args[0], err)
	}
	if out.ExitCode != 0 {
		return out, c.failure(args[0], out)
	}
	return out, nil
}

// failure codes a schtasks error: not_found or permission_denied when
// its text holds one of the host's messages for those, else task_failed.
func (c *taskCtl) failure(verb string, out cmdOutput) error {
	text := strings.TrimSpace(out.Stderr)
	if text == "" {
		text = strings.TrimSpace(out.Stdout)
	}
	if len(text) > maxErrorText {
		text = strings.ToValidUTF8(text[:maxErrorText], "") + "…"
	}
	code := CodeTaskFailed
	switch {
	case containsAny(text, c.messages.notFound):
		code = CodeNotFound
	case containsAny(text, c.messages.denied):
		code = CodePermissionDenied
	}
	if text == "" {
		text = "no message"
	}
	return codeError(code, "schtasks %s exited with code %d: %s", verb, out.ExitCode, text)
}

// containsAny matches case-insensitively, ignoring the messages' final
// punctuation so that "ERROR: <message>." matches either way.
func containsAny(text string, msgs []string) bool {
	lower := strings.ToLower(text)
	for _, m := range msgs {
		m = strings.TrimRight(strings.TrimSpace(m), ".。 ")
		if m != "" && strings.Contains(lower, strings.ToLower(m)) {
			return true
		}
	}
	return false
}

// englishTaskMessages are schtasks' English texts for a missing task (the
// second from older Windows) and for access denied; each host adds its
// own language's system messages.
var englishTaskMessages = taskMessages{
	notFound: []string{
		"The system cannot find the file specified",
		"The system cannot find the path specified",
		"does not exist in the system",
	},
	denied: []string{"Access is denied"},
}
