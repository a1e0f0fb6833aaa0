package e2e

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// stubPage imitates, in plain DOM, the parts of the console the browser
// helpers rely on: inputs and buttons by test id, an antd-like Select, an
// xterm-like terminal (helper textarea, .xterm-rows) and a tab opened with a
// form in it.
const stubPage = `<!doctype html><html lang="en"><body>
<input data-testid="name" value="old">
<button data-testid="go" onclick="document.querySelector('[data-testid=out]').setAttribute('data-v', document.querySelector('[data-testid=name]').value)">go</button>
<span data-testid="out" data-v=""></span>
<div data-testid="fmt" class="ant-select" onclick="document.getElementById('dd').classList.remove('ant-select-dropdown-hidden')">A</div>
<div id="dd" class="ant-select-dropdown ant-select-dropdown-hidden" style="position:absolute;top:200px">
 <div class="ant-select-item-option" onclick="document.querySelector('[data-testid=fmt]').textContent='A'">A</div>
 <div class="ant-select-item-option" onclick="document.querySelector('[data-testid=fmt]').textContent='B'">B</div>
</div>
<div data-testid="terminal"><textarea class="xterm-helper-textarea" style="position:absolute;opacity:0;left:-9999em;width:0;height:0"></textarea><div class="xterm-rows"></div></div>
<button data-testid="pay" onclick="window.open('/checkout', '_blank')">pay</button>
<script>
const ta = document.querySelector('.xterm-helper-textarea'), rows = document.querySelector('.xterm-rows');
let line = '';
ta.addEventListener('keydown', e => {
  if (e.key === 'Enter') {
    const d = document.createElement('div'); d.textContent = '$ ' + line; rows.appendChild(d);
    const m = line.match(/^echo (.*)$/);
    if (m) { const o = document.createElement('div'); o.textContent = m[1] + '\u00a0\u00a0'; rows.appendChild(o); }
    line = ''; e.preventDefault();
  } else if (e.key.length === 1) { line += e.key; e.preventDefault(); }
});
</script></body></html>`

// TestConsoleHarness checks the browser helpers against the stub page, so
// that they are known to work before the console exists.
func TestConsoleHarness(t *testing.T) {
	chromiumPath(t)
	paid := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch {
		case r.URL.Path == "/checkout" && r.Method == "POST":
			paid <- struct{}{}
			_, _ = w.Write([]byte(`<p>paid</p>`))
		case r.URL.Path == "/checkout":
			_, _ = w.Write([]byte(`<form method="post"><button type="submit">Pay</button></form>`))
		default:
			_, _ = w.Write([]byte(stubPage))
		}
	}))
	defer srv.Close()
	t.Setenv("HOSTGATE_SCREENSHOTS", t.TempDir())
	b := NewBrowser(t, srv.URL, time.Minute)
	b.Open("/")
	b.WaitPath(`^/$`, 5*time.Second)

	b.Type("name", "new value")
	b.Click("go")
	b.WaitAttr(tid("out"), "data-v", "new value", 5*time.Second)

	b.Choose("fmt", "B")
	if got := strings.TrimSpace(b.Text("fmt")); got != "B" {
		t.Fatalf("select shows %q, want B", got)
	}

	b.TypeTerminal("echo hi-there\r")
	if m := b.WaitTerminal(`(?m)^\s*hi-there\s*$`, 5*time.Second); m == nil {
		t.Fatal("no terminal match")
	}

	b.Shot("stub")
	if got := b.evalString(`innerWidth + 'x' + innerHeight`); got != "1366x800" {
		t.Fatalf("viewport after screenshots %s, want 1366x800", got)
	}

	tabs := chromedp.WaitNewTarget(b.ctx, func(i *target.Info) bool { return i.Type == "page" })
	b.Click("pay")
	select {
	case id := <-tabs:
		if !b.payInTab(id) {
			t.Fatal("checkout form not driven")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no new tab")
	}
	select {
	case <-paid:
	case <-time.After(5 * time.Second):
		t.Fatal("checkout form not posted")
	}
	if !b.PollOK(time.Second, `document.querySelector('[data-testid=out]') !== null`) {
		t.Fatal("the first tab is no longer driven")
	}
}
