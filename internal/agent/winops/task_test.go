package winops

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"hostgate/internal/agentproto"
)

// These tests drive the scheduled-task logic through a recorded
// schtasks. Wine 8 cannot cover it: its schtasks /Create is a silent stub
// and /Query prints nothing, so the command lines, the parsing of Windows'
// XML output and the error mapping are checked here against outputs in
// the format Windows 10/11 and Server 2019/2022 print (testdata/).

// fakeSchtasks answers schtasks command lines from a script.
type fakeSchtasks struct {
	replies map[string]cmdOutput // by space-joined args
	calls   []string
	created []byte // the /XML file given to /Create
	xmlPath string
	err     error
}

func (f *fakeSchtasks) run(_ context.Context, program string, args ...string) (cmdOutput, error) {
	if program != `C:\Windows\System32\schtasks.exe` {
		return cmdOutput{}, errors.New("unexpected program " + program)
	}
	if f.err != nil {
		return cmdOutput{}, f.err
	}
	key := strings.Join(args, " ")
	if args[0] == "/Create" {
		i := slices.Index(args, "/XML")
		f.xmlPath = args[i+1]
		b, err := os.ReadFile(f.xmlPath)
		if err != nil {
			return cmdOutput{}, err
		}
		f.created = b
		key = strings.Replace(key, f.xmlPath, "FILE", 1)
	}
	f.calls = append(f.calls, key)
	out, ok := f.replies[key]
	if !ok {
		return cmdOutput{Stderr: "ERROR: Invalid syntax.\r\n", ExitCode: 1}, nil
	}
	return out, nil
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// chineseMessages are what a Simplified Chinese host adds through
// FormatMessage.
var chineseMessages = taskMessages{
	notFound: append(slices.Clone(englishTaskMessages.notFound), "系统找不到指定的文件。", "系统找不到指定的路径。"),
	denied:   append(slices.Clone(englishTaskMessages.denied), "拒绝访问。"),
}

func newFakeTasks(t *testing.T, replies map[string]cmdOutput) (*fakeSchtasks, Handler) {
	f := &fakeSchtasks{replies: replies}
	ctl := &taskCtl{r: f, program: `C:\Windows\System32\schtasks.exe`, tempDir: t.TempDir(), messages: chineseMessages}
	return f, newTaskHandler(ctl)
}

func callTask(t *testing.T, h Handler, path, data string) (agentproto.TaskResult, error) {
	t.Helper()
	args, _ := json.Marshal(agentproto.ControlArgs{Path: path, Data: json.RawMessage(data)})
	res, err := h(context.Background(), args)
	if err != nil {
		return agentproto.TaskResult{}, err
	}
	r, ok := res.(agentproto.TaskResult)
	if !ok {
		t.Fatalf("result %T", res)
	}
	return r, nil
}

const backupQuery = `/Query /TN \hostgate\backup /XML`

func TestTaskList(t *testing.T) {
	f, h := newFakeTasks(t, map[string]cmdOutput{"/Query /XML ONE": {Stdout: fixture(t, "schtasks_query_xml_one.txt")}})
	r, err := callTask(t, h, "", `{"action":"list"}`)
	if err != nil {
		t.Fatal(err)
	}
	want := []agentproto.TaskInfo{
		{Name: `\hostgate\backup`, Enabled: true, State: "unknown"},
		{Name: `\hostgate\游戏服务器重启`, Enabled: false, State: "disabled"},
		{Name: `\Microsoft\Windows\Defrag\ScheduledDefrag`, Enabled: true, State: "unknown"},
		{Name: `\Microsoft\Windows\UpdateOrchestrator\Schedule Scan`, Enabled: true, State: "unknown"},
	}
	if !reflect.DeepEqual(r.Tasks, want) {
		t.Errorf("tasks\n%+v\nwant\n%+v", r.Tasks, want)
	}
	if !reflect.DeepEqual(f.calls, []string{"/Query /XML ONE"}) {
		t.Errorf("calls %q", f.calls)
	}
}

// Wine's schtasks prints nothing for /Query: that is no tasks, not an
// error.
func TestTaskListEmptyOutput(t *testing.T) {
	_, h := newFakeTasks(t, map[string]cmdOutput{"/Query /XML ONE": {}})
	r, err := callTask(t, h, "", `{"action":"list"}`)
	if err != nil || len(r.Tasks) != 0 {
		t.Fatalf("tasks %v, err %v", r.Tasks, err)
	}
}

func TestTaskQuery(t *testing.T) {
	out := fixture(t, "schtasks_query_tn_xml.txt")
	f, h := newFakeTasks(t, map[string]cmdOutput{
		backupQuery:                       {Stdout: out},
		`/Query /TN hostgate\backup /XML`: {Stdout: fixture(t, "schtasks_query_tn_xml_disabled.txt")},
	})
	r, err := callTask(t, h, `\hostgate\backup`, `{"action":"query"}`)
	if err != nil {
		t.Fatal(err)
	}
	if r.Task == nil || r.Task.Name != `\hostgate\backup` || !r.Task.Enabled || r.Task.State != "unknown" || r.Task.XML != strings.TrimSpace(out) {
		t.Errorf("task %+v", r.Task)
	}
	// Without the leading backslash, the name comes back as Windows
	// spells it.
	r, err = callTask(t, h, `hostgate\backup`, `{"action":"query"}`)
	if err != nil || r.Task.Name != `\hostgate\backup` || r.Task.Enabled || r.Task.State != "disabled" {
		t.Errorf("task %+v, err %v", r.Task, err)
	}
	if len(f.calls) != 2 {
		t.Errorf("calls %q", f.calls)
	}
}

func TestTaskErrors(t *testing.T) {
	long := strings.Repeat("错", 2000)
	cases := []struct {
		name string
		out  cmdOutput
		code string
		msg  string
	}{
		{"missing (Windows 10)", cmdOutput{Stderr: "ERROR: The system cannot find the file specified.\r\n", ExitCode: 1}, CodeNotFound, "cannot find the file"},
		{"missing folder", cmdOutput{Stderr: "ERROR: The system cannot find the path specified.\r\n", ExitCode: 1}, CodeNotFound, "path"},
		{"missing (Windows 7)", cmdOutput{Stderr: "ERROR: The specified task name \"\\hostgate\\backup\" does not exist in the system.\r\n", ExitCode: 1}, CodeNotFound, "does not exist"},
		{"missing (Chinese)", cmdOutput{Stderr: "错误: 系统找不到指定的文件。\r\n", ExitCode: 1}, CodeNotFound, "系统找不到指定的文件"},
		{"denied", cmdOutput{Stderr: "ERROR: Access is denied.\r\n", ExitCode: 1}, CodePermissionDenied, "Access is denied"},
		{"denied (Chinese)", cmdOutput{Stderr: "错误: 拒绝访问。\r\n", ExitCode: 1}, CodePermissionDenied, "拒绝访问"},
		{"other", cmdOutput{Stderr: "ERROR: The task image is corrupt or has been tampered with.\r\n", ExitCode: 1}, CodeTaskFailed, "corrupt"},
		{"message on stdout", cmdOutput{Stdout: "WARNING: something\r\n", ExitCode: 1}, CodeTaskFailed, "WARNING: something"},
		{"no message", cmdOutput{ExitCode: 1}, CodeTaskFailed, "exited with code 1: no message"},
		{"long message", cmdOutput{Stderr: long, ExitCode: 1}, CodeTaskFailed, "…"},
		{"no definition", cmdOutput{}, CodeTaskFailed, "no task definition"},
		{"garbage", cmdOutput{Stdout: "<Task><Settings>"}, CodeTaskFailed, "task XML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, h := newFakeTasks(t, map[string]cmdOutput{backupQuery: c.out})
			_, err := callTask(t, h, `\hostgate\backup`, `{"action":"query"}`)
			if errCode(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err %v, want %s containing %q", err, c.code, c.msg)
			}
			if len(err.Error()) > maxErrorText+200 {
				t.Errorf("message of %d bytes", len(err.Error()))
			}
		})
	}
}

func TestTaskRunnerFailure(t *testing.T) {
	f, h := newFakeTasks(t, nil)
	f.err = context.DeadlineExceeded
	_, err := callTask(t, h, `\x`, `{"action":"run"}`)
	if errCode(err) != agentproto.CodeFailed || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
}

func TestTaskChanges(t *testing.T) {
	cases := []struct {
		action string
		args   string
	}{
		{"run", `/Run /TN \hostgate\backup`},
		{"end", `/End /TN \hostgate\backup`},
		{"enable", `/Change /TN \hostgate\backup /ENABLE`},
		{"disable", `/Change /TN \hostgate\backup /DISABLE`},
	}
	for _, c := range cases {
		t.Run(c.action, func(t *testing.T) {
			f, h := newFakeTasks(t, map[string]cmdOutput{
				c.args:      {Stdout: "SUCCESS: done.\r\n"},
				backupQuery: {Stdout: fixture(t, "schtasks_query_tn_xml.txt")},
			})
			r, err := callTask(t, h, `\hostgate\backup`, `{"action":"`+c.action+`"}`)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(f.calls, []string{c.args, backupQuery}) {
				t.Errorf("calls %q", f.calls)
			}
			if r.Task == nil || r.Task.Name != `\hostgate\backup` || r.Task.XML != "" {
				t.Errorf("task %+v (the XML is for query only)", r.Task)
			}
		})
	}
}

func TestTaskChangeOfMissingTask(t *testing.T) {
	f, h := newFakeTasks(t, map[string]cmdOutput{
		`/Run /TN \nope`: {Stderr: "ERROR: The system cannot find the file specified.\r\n", ExitCode: 1},
	})
	if _, err := callTask(t, h, `\nope`, `{"action":"run"}`); errCode(err) != CodeNotFound {
		t.Fatalf("err %v", err)
	}
	if len(f.calls) != 1 {
		t.Errorf("calls %q", f.calls)
	}
}

func TestTaskDelete(t *testing.T) {
	f, h := newFakeTasks(t, map[string]cmdOutput{
		backupQuery:                       {Stdout: fixture(t, "schtasks_query_tn_xml.txt")},
		`/Delete /TN \hostgate\backup /F`: {Stdout: "SUCCESS: The scheduled task \"\\hostgate\\backup\" was successfully deleted.\r\n"},
	})
	r, err := callTask(t, h, `\hostgate\backup`, `{"action":"delete"}`)
	if err != nil || r.Task == nil || r.Task.Name != `\hostgate\backup` {
		t.Fatalf("task %+v, err %v", r.Task, err)
	}
	if !reflect.DeepEqual(f.calls, []string{backupQuery, `/Delete /TN \hostgate\backup /F`}) {
		t.Errorf("calls %q", f.calls)
	}
	// A missing task is reported without trying to delete it.
	f, h = newFakeTasks(t, map[string]cmdOutput{
		`/Query /TN \nope /XML`: {Stderr: "ERROR: The system cannot find the file specified.\r\n", ExitCode: 1},
	})
	if _, err := callTask(t, h, `\nope`, `{"action":"delete"}`); errCode(err) != CodeNotFound || len(f.calls) != 1 {
		t.Fatalf("err %v, calls %q", err, f.calls)
	}
}

func TestTaskCreate(t *testing.T) {
	def := `<?xml version="1.0" encoding="UTF-8"?>
<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">
  <RegistrationInfo><Description>重启游戏服务器</Description></RegistrationInfo>
  <Actions Context="Author"><Exec><Command>D:\游戏\restart.bat</Command></Exec></Actions>
</Task>`
	f, h := newFakeTasks(t, map[string]cmdOutput{
		`/Create /TN \hostgate\restart /XML FILE /F`: {Stdout: "SUCCESS: The scheduled task \"\\hostgate\\restart\" has successfully been created.\r\n"},
		`/Query /TN \hostgate\restart /XML`:          {Stdout: strings.Replace(fixture(t, "schtasks_query_tn_xml.txt"), `\hostgate\backup`, `\hostgate\restart`, 1)},
	})
	data, _ := json.Marshal(agentproto.TaskData{Action: "create", XML: def})
	r, err := callTask(t, h, `\hostgate\restart`, string(data))
	if err != nil {
		t.Fatal(err)
	}
	if r.Task == nil || r.Task.Name != `\hostgate\restart` || !r.Task.Enabled {
		t.Errorf("task %+v", r.Task)
	}
	if len(f.calls) != 2 {
		t.Errorf("calls %q", f.calls)
	}
	// The file was UTF-16LE with a BOM and a UTF-16 declaration, and is
	// gone afterwards.
	if len(f.created) < 2 || f.created[0] != 0xff || f.created[1] != 0xfe {
		t.Fatalf("file starts % x", f.created[:min(4, len(f.created))])
	}
	got := string(utf16.Decode(utf16Units(f.created[2:])))
	want := "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\r\n" + def[strings.Index(def, "<Task"):]
	if got != want {
		t.Errorf("file text\n%s\nwant\n%s", got, want)
	}
	if _, err := os.Stat(filepath.Dir(f.xmlPath)); !os.IsNotExist(err) {
		t.Errorf("temporary directory left behind: %v", err)
	}
}

func TestTaskCreateFailure(t *testing.T) {
	f, h := newFakeTasks(t, map[string]cmdOutput{
		`/Create /TN \x /XML FILE /F`: {Stderr: "ERROR: The task XML contains a value which is incorrectly formatted or out of range.\r\n(8,20):StartBoundary:2026-13-01\r\n", ExitCode: 1},
	})
	_, err := callTask(t, h, `\x`, `{"action":"create","xml":"<Task/>"}`)
	if errCode(err) != CodeTaskFailed || !strings.Contains(err.Error(), "StartBoundary") {
		t.Fatalf("err %v", err)
	}
	if _, statErr := os.Stat(filepath.Dir(f.xmlPath)); !os.IsNotExist(statErr) {
		t.Errorf("temporary directory left behind")
	}
}
