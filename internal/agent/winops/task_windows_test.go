package winops

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"hostgate/internal/agentproto"
)

// The system task handler runs the real schtasks.exe. Under Wine 8 the
// Task Scheduler is a stub (/Query prints nothing, /Create does nothing),
// so there only the plumbing is checked; task_test.go covers the logic.
func TestSystemTasks(t *testing.T) {
	ctl := systemTasks()
	if !strings.HasSuffix(strings.ToLower(ctl.program), `\system32\schtasks.exe`) {
		t.Errorf("program %s", ctl.program)
	}
	if len(ctl.messages.notFound) <= len(englishTaskMessages.notFound) {
		t.Errorf("no system messages added: %q", ctl.messages.notFound)
	}
	res, err := call(t, agentproto.CtlScheduledTaskCtl, "", `{"action":"list"}`)
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	tasks := res.(agentproto.TaskResult).Tasks
	if underWine() {
		t.Logf("Wine: %d tasks listed (its schtasks /Query prints nothing)", len(tasks))
		return
	}
	if len(tasks) == 0 {
		t.Error("no tasks on a Windows host")
	}
	if _, err := call(t, agentproto.CtlScheduledTaskCtl, `\hostgate-no-such-task`, `{"action":"query"}`); errCode(err) != CodeNotFound {
		t.Errorf("query of a missing task: %v", err)
	}
}

// TestTaskLifecycle creates, queries, disables, enables, runs and deletes
// a real task. Wine 8's schtasks /Create registers nothing.
func TestTaskLifecycle(t *testing.T) {
	if underWine() {
		t.Skip("Wine 8's Task Scheduler is a stub: schtasks /Create registers nothing and /Query prints nothing")
	}
	requireAdmin(t)
	name := fmt.Sprintf(`\hostgate-test\task-%d`, time.Now().UnixNano())
	t.Cleanup(func() { _, _ = call(t, agentproto.CtlScheduledTaskCtl, name, `{"action":"delete"}`) })
	def := `<Task version="1.2" xmlns="http://schemas.microsoft.com/windows/2004/02/mit/task">` +
		`<Principals><Principal id="Author"><UserId>S-1-5-18</UserId></Principal></Principals>` +
		`<Settings><Enabled>true</Enabled></Settings>` +
		`<Actions Context="Author"><Exec><Command>cmd.exe</Command><Arguments>/c exit 0</Arguments></Exec></Actions></Task>`
	steps := []struct {
		data    string
		enabled bool
	}{
		{fmt.Sprintf(`{"action":"create","xml":%q}`, def), true},
		{`{"action":"query"}`, true},
		{`{"action":"disable"}`, false},
		{`{"action":"enable"}`, true},
		{`{"action":"run"}`, true},
		{`{"action":"end"}`, true},
		{`{"action":"delete"}`, true},
	}
	for _, s := range steps {
		res, err := call(t, agentproto.CtlScheduledTaskCtl, name, s.data)
		if err != nil {
			t.Fatalf("%s: %v", s.data, err)
		}
		task := res.(agentproto.TaskResult).Task
		if task == nil || task.Name != name || task.Enabled != s.enabled {
			t.Errorf("%s: %+v", s.data, task)
		}
	}
	if _, err := call(t, agentproto.CtlScheduledTaskCtl, name, `{"action":"query"}`); errCode(err) != CodeNotFound {
		t.Errorf("query after delete: %v", err)
	}
}
