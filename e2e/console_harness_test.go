package e2e

// The browser half of the console tests: Debian's Chromium, headless,
// driven by chromedp, with helpers that find elements only by the
// data-testids of web/CONTRACT.md.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"hostgate/internal/eventually"
)

// Desktop and phone viewports of the screenshots.
var (
	desktopSize = [2]int64{1366, 800}
	phoneSize   = [2]int64{390, 844}
)

// skipOrFail skips the test on a developer's machine and fails it under CI,
// where a missing browser or console must never pass as a skip.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip("skipping: " + msg)
}

// chromiumPath is $HOSTGATE_CHROMIUM or Debian's /usr/bin/chromium; a
// missing browser skips the test (fails it under CI).
func chromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("HOSTGATE_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if st, err := os.Stat(p); err != nil || st.IsDir() || st.Mode()&0o111 == 0 {
		skipOrFail(t, "no Chromium at %s (apt-get install chromium, or set HOSTGATE_CHROMIUM)", p)
	}
	return p
}

// consoleDist is where `make build` puts the console the hub embeds.
const consoleDist = "../internal/console/dist/index.html"

// requireConsoleBuilt checks, before any hub is built, that the console's
// files are there for go build to embed.
func requireConsoleBuilt(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(consoleDist); err != nil {
		skipOrFail(t, "the console is not built (%s missing): run `make build` (npm --prefix web ci && npm --prefix web run build) first", consoleDist)
	}
}

// requireHubServesConsole checks that the hub answers / with the console,
// not with the page a hub built without it shows.
func requireHubServesConsole(t *testing.T, h *Hub) {
	t.Helper()
	resp, err := http.Get(h.URL + "/")
	if err != nil {
		t.Fatalf("GET /: %v", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != 200 || strings.Contains(string(body), "make build") {
		skipOrFail(t, "the hub does not serve the console (GET / → %d, %q…): run `make build` first", resp.StatusCode, firstN(string(body), 200))
	}
}

func firstN(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// screenshotDir is $HOSTGATE_SCREENSHOTS or e2e/screenshots (git-ignored).
func screenshotDir(t *testing.T) string {
	t.Helper()
	d := os.Getenv("HOSTGATE_SCREENSHOTS")
	if d == "" {
		d = "screenshots"
	}
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatalf("screenshots: %v", err)
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// Browser is one headless Chromium with one tab on a hub's console.
type Browser struct {
	t      *testing.T
	ctx    context.Context // the tab
	base   string          // the hub's URL
	shots  string          // screenshot directory
	prefix string          // screenshot file name prefix (the subtest)
	logs   *syncBuffer     // the page's console and errors
	mu     sync.Mutex
	size   [2]int64
}

// NewBrowser starts Chromium with a fresh profile; it ends with the test,
// after dumping the page's URL, a screenshot and its console log if the test
// failed. limit bounds the whole browser session.
func NewBrowser(t *testing.T, base string, limit time.Duration) *Browser {
	t.Helper()
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("lang", "en-US"),
		chromedp.WindowSize(int(desktopSize[0]), int(desktopSize[1])),
	}
	root, cancelRoot := context.WithTimeout(context.Background(), limit)
	actx, cancelAlloc := chromedp.NewExecAllocator(root, opts...)
	b := &Browser{t: t, base: strings.TrimRight(base, "/"), shots: screenshotDir(t), logs: &syncBuffer{}, size: desktopSize,
		prefix: strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())}
	ctx, cancelTab := chromedp.NewContext(actx, chromedp.WithErrorf(func(f string, a ...any) {
		fmt.Fprintf(b.logs, "[chromedp] "+f+"\n", a...)
	}))
	b.ctx = ctx
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
		cancelRoot()
	})
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(desktopSize[0], desktopSize[1])); err != nil {
		t.Fatalf("start Chromium (%s): %v", exe, err)
	}
	go func() {
		for m, err := range chromedp.Console(ctx) {
			if err != nil {
				return
			}
			fmt.Fprintf(b.logs, "%s %s\n", time.Now().UTC().Format("15:04:05.000"), m.String())
		}
	}()
	// Registered after the cancels, so it runs before them.
	t.Cleanup(func() {
		if t.Failed() {
			b.dump()
		}
	})
	return b
}

// dump writes what the page showed when the test failed into the test log.
func (b *Browser) dump() {
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		b.t.Logf("browser dump: %v", err)
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Logf("browser dump: %v", err)
	}
	b.t.Logf("browser at %s", url)
	if len(png) > 0 {
		p := filepath.Join(b.shots, b.prefix+"-FAILURE.png")
		if err := os.WriteFile(p, png, 0o644); err == nil {
			b.t.Logf("failure screenshot: %s", p)
		}
	}
	b.t.Logf("browser console log:\n%s", b.logs.String())
}

// tid is the CSS selector of a contract test id.
func tid(id string) string { return `[data-testid="` + id + `"]` }

// run runs actions with a deadline and fails the test (naming what) on error.
func (b *Browser) run(limit time.Duration, what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, limit)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// Open navigates to a path of the console.
func (b *Browser) Open(path string) {
	b.t.Helper()
	b.run(30*time.Second, "open "+path, chromedp.Navigate(b.base+path))
}

// WaitVisible waits for a test id to be shown.
func (b *Browser) WaitVisible(id string, limit time.Duration) {
	b.t.Helper()
	b.run(limit, "wait for "+id, chromedp.WaitVisible(chromedp.CSS(tid(id))))
}

// Click clicks the (first visible) element of a test id.
func (b *Browser) Click(id string) {
	b.t.Helper()
	b.ClickSel(tid(id))
}

// settledJS resolves once the first visible element of a selector has kept
// its place for three animation frames and is the element hit at its
// centre (no dialog opening or closing over it, no animation moving it), or
// after 3 s, so that a click lands on it.
const settledJS = `new Promise(resolve => {
	const sel = %q, start = performance.now();
	let last = '', same = 0;
	const tick = () => {
		const el = [...document.querySelectorAll(sel)].find(e => e.getClientRects().length > 0);
		if (el) {
			const r = el.getBoundingClientRect(), k = [r.x, r.y, r.width, r.height].join();
			const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
			same = k === last && hit && (el === hit || el.contains(hit) || hit.contains(el)) ? same + 1 : 0;
			last = k;
		}
		if (same >= 3 || performance.now() - start > 3000) resolve(same >= 3);
		else requestAnimationFrame(tick);
	};
	requestAnimationFrame(tick);
})`

// ClickSel clicks the first element of a CSS selector once it is visible
// and settled.
func (b *Browser) ClickSel(sel string) {
	b.t.Helper()
	b.run(15*time.Second, "click "+sel,
		chromedp.WaitVisible(chromedp.CSS(sel)),
		chromedp.ScrollIntoView(chromedp.CSS(sel)),
		discard(chromedp.Evaluate[bool](fmt.Sprintf(settledJS, sel), chromedp.EvalAwaitPromise)),
		chromedp.Click(chromedp.CSS(sel)))
}

// Type replaces the value of an input with a test id by typing text.
func (b *Browser) Type(id, text string) {
	b.t.Helper()
	b.TypeSel(tid(id), text)
}

// TypeSel is Type for a CSS selector.
func (b *Browser) TypeSel(sel, text string) {
	b.t.Helper()
	// Clearing through the native setter, which React's onChange sees, and
	// focusing it for the key events. (chromedp.SendKeys reads the node's
	// attributes without the lock its DOM event handler writes them under,
	// which the race detector reports; key events to the focused element
	// need no node.)
	clear := fmt.Sprintf(`(() => {
		const el = document.querySelector(%q);
		if (!el) return false;
		const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
		Object.getOwnPropertyDescriptor(proto, 'value').set.call(el, '');
		el.dispatchEvent(new Event('input', {bubbles: true}));
		el.focus();
		return document.activeElement === el;
	})()`, sel)
	b.run(15*time.Second, "type into "+sel,
		chromedp.WaitVisible(chromedp.CSS(sel)),
		discard(chromedp.Poll[bool](clear)),
		chromedp.KeyEvent(text))
}

// Text is the text of the element of a test id (waiting for it to exist).
func (b *Browser) Text(id string) string {
	b.t.Helper()
	return get(b, 15*time.Second, "text of "+id, chromedp.Text(chromedp.CSS(tid(id))))
}

// discard makes an action that drops the value of a.
func discard[T any](a chromedp.Action[T]) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := a(ctx, t)
		return chromedp.Void{}, err
	}
}

// get runs an action with a value and a deadline, failing on error.
func get[T any](b *Browser, limit time.Duration, what string, a chromedp.Action[T]) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, limit)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// evalString evaluates a JavaScript expression to a string.
func (b *Browser) evalString(expr string) string {
	b.t.Helper()
	return get(b, 15*time.Second, "evaluate "+firstN(expr, 80), chromedp.Evaluate[string](expr))
}

// try evaluates expr with a short deadline, without failing.
func try[T any](b *Browser, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}

// Poll evaluates a JavaScript boolean expression until it is true; on a
// timeout it fails with what and the last value of describe (a JS
// expression, may be empty).
func (b *Browser) Poll(limit time.Duration, what, expr, describe string) {
	b.t.Helper()
	var ok bool
	var err error
	eventually.Within(limit, func() bool {
		ok, err = try[bool](b, `!!(`+expr+`)`)
		return err == nil && ok || b.ctx.Err() != nil
	})
	if err == nil && ok {
		return
	}
	var last string
	if describe != "" {
		last, _ = try[string](b, `String(`+describe+`)`)
	}
	b.t.Fatalf("%s: not within %s (last error %v; seen %q)", what, limit, err, last)
}

// PollOK is Poll that reports a timeout instead of failing.
func (b *Browser) PollOK(limit time.Duration, expr string) bool {
	var ok bool
	var err error
	eventually.Within(limit, func() bool {
		ok, err = try[bool](b, `!!(`+expr+`)`)
		return err == nil && ok || b.ctx.Err() != nil
	})
	return err == nil && ok
}

// visibleJS is a JavaScript expression: an element of the selector is
// rendered (has a layout box).
func visibleJS(sel string) string {
	return fmt.Sprintf(`[...document.querySelectorAll(%q)].some(e => e.getClientRects().length > 0)`, sel)
}

// jsq is the JavaScript for querySelector of a CSS selector.
func jsq(sel string) string { return fmt.Sprintf("document.querySelector(%q)", sel) }

// WaitAttr polls until the element of a selector has attribute name = want.
func (b *Browser) WaitAttr(sel, name, want string, limit time.Duration) {
	b.t.Helper()
	el := jsq(sel)
	b.Poll(limit, fmt.Sprintf("%s[%s=%q]", sel, name, want),
		fmt.Sprintf(`%s && %s.getAttribute(%q) === %q`, el, el, name, want),
		fmt.Sprintf(`%s ? %s.getAttribute(%q) + ' / ' + %s.textContent : 'absent'`, el, el, name, el))
}

// Attr is an attribute of the element of a selector ("" when absent).
func (b *Browser) Attr(sel, name string) string {
	b.t.Helper()
	return b.evalString(fmt.Sprintf(`(() => { const e = %s; return e ? (e.getAttribute(%q) || '') : ''; })()`, jsq(sel), name))
}

// Path is the location's path.
func (b *Browser) Path() string {
	b.t.Helper()
	return b.evalString(`location.pathname`)
}

// WaitPath polls until the location's path matches re.
func (b *Browser) WaitPath(re string, limit time.Duration) string {
	b.t.Helper()
	rx := regexp.MustCompile(re)
	var p string
	var err error
	eventually.Within(limit, func() bool {
		p, err = try[string](b, `location.pathname + location.search`)
		return err == nil && rx.MatchString(p) || b.ctx.Err() != nil
	})
	if err != nil || !rx.MatchString(p) {
		b.t.Fatalf("path %q: not within %s (at %q, %v)", re, limit, p, err)
	}
	return p
}

// Choose picks the option of an antd Select (test id on the Select) whose
// text is want (or, failing an exact match, contains it as a word).
func (b *Browser) Choose(id, want string) {
	b.t.Helper()
	b.Click(id)
	mark := fmt.Sprintf(`(() => {
		document.querySelectorAll('[data-e2e-pick]').forEach(e => e.removeAttribute('data-e2e-pick'));
		const opts = [...document.querySelectorAll('.ant-select-dropdown:not(.ant-select-dropdown-hidden) .ant-select-item-option')]
			.filter(e => e.getClientRects().length > 0);
		const want = %q;
		let pick = opts.find(e => e.textContent.trim() === want);
		if (!pick) pick = opts.find(e => new RegExp('(^|\\W)' + want + '(\\W|$)').test(e.textContent.trim()));
		if (!pick) return opts.map(e => e.textContent.trim()).join('|') || 'none';
		pick.setAttribute('data-e2e-pick', '1');
		return '';
	})()`, want)
	var miss string
	if !eventually.Within(10*time.Second, func() bool { miss = b.evalString(mark); return miss == "" }) {
		b.t.Fatalf("select %s: no option %q (options: %s)", id, want, miss)
	}
	b.ClickSel(`[data-e2e-pick]`)
}

// Resize changes the viewport, as a window resize would.
func (b *Browser) Resize(w, h int64, mobile bool) {
	b.t.Helper()
	opts := []chromedp.EmulateViewportOption{}
	if mobile {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateScale(1))
	}
	b.run(10*time.Second, fmt.Sprintf("viewport %dx%d", w, h), chromedp.EmulateViewport(w, h, opts...))
	b.mu.Lock()
	b.size = [2]int64{w, h}
	b.mu.Unlock()
}

// Shot saves full-page screenshots at the desktop and the phone size
// (letting the layout settle at each), then restores the size it had.
func (b *Browser) Shot(name string) {
	b.t.Helper()
	b.mu.Lock()
	was := b.size
	b.mu.Unlock()
	for _, sz := range [][2]int64{desktopSize, phoneSize} {
		b.Resize(sz[0], sz[1], sz == phoneSize)
		// From the top (sticky bars stay in place), once the layout has
		// reacted to the resize and dialogs have finished opening or closing.
		b.run(10*time.Second, "settle", discard(chromedp.Evaluate[bool](
			settleJS, chromedp.EvalAwaitPromise)))
		// The whole page (quality 100: PNG), not only what the window shows.
		b.save(name, sz, get(b, 20*time.Second, "screenshot "+name, chromedp.FullScreenshot(100)))
	}
	b.Resize(was[0], was[1], was == phoneSize)
}

// settleJS scrolls to the top and resolves after two animation frames and
// once no finite animation or transition runs (at most 2 s: a spinner may
// run for ever).
const settleJS = `(scrollTo(0, 0), new Promise(resolve => {
	const start = performance.now();
	let frames = 0;
	const tick = () => {
		const busy = document.getAnimations().some(a => a.playState === 'running' &&
			(!a.effect || a.effect.getComputedTiming().iterations !== Infinity));
		if ((++frames >= 2 && !busy) || performance.now() - start > 2000) resolve(true);
		else requestAnimationFrame(tick);
	};
	requestAnimationFrame(tick);
}))`

// save writes a screenshot as <test>-<name>-<w>x<h>.png.
func (b *Browser) save(name string, sz [2]int64, png []byte) {
	b.t.Helper()
	p := filepath.Join(b.shots, fmt.Sprintf("%s-%s-%dx%d.png", b.prefix, name, sz[0], sz[1]))
	if err := os.WriteFile(p, png, 0o644); err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
}

// Terminal returns the text the xterm in the page shows, rows joined by
// newlines.
func (b *Browser) Terminal() string {
	b.t.Helper()
	return b.evalString(`(() => { const r = document.querySelector('[data-testid="terminal"] .xterm-rows'); return r ? r.innerText.replace(/\u00a0/g, ' ') : ''; })()`)
}

// TypeTerminal focuses the xterm's input and types keys ("\r" is Enter).
func (b *Browser) TypeTerminal(keys string) {
	b.t.Helper()
	const sel = `[data-testid="terminal"] .xterm-helper-textarea`
	// The helper textarea is invisible by design: focus it from the page,
	// then type at the focused element.
	b.run(15*time.Second, "type into the terminal",
		chromedp.WaitReady(chromedp.CSS(sel)),
		discard(chromedp.Evaluate[bool](fmt.Sprintf(`(() => { %s.focus(); return document.activeElement === %s; })()`, jsq(sel), jsq(sel)))),
		typeKeys(keys))
}

// typeKeys types at the focused element as a keyboard does (and as
// Puppeteer's keyboard.type does): per key a keyDown that carries the text,
// then a keyUp. chromedp's KeyEvent adds a separate char event, which
// xterm.js takes as a second key press and echoes every character twice.
func typeKeys(keys string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, r := range keys {
			evs := kb.Encode(r)
			var text, unmod string
			for _, e := range evs {
				if e.Type == input.DispatchKeyEventTypeChar {
					text, unmod = e.Text, e.UnmodifiedText
				}
			}
			for _, e := range evs {
				switch e.Type {
				case input.DispatchKeyEventTypeChar:
					continue
				case input.DispatchKeyEventTypeKeyDown:
					if text != "" {
						e.Text, e.UnmodifiedText = text, unmod
					} else {
						e.Type = input.DispatchKeyEventTypeRawKeyDown
					}
				}
				if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, *e); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// WaitTerminal polls until the terminal's text matches re and returns the
// first match's groups.
func (b *Browser) WaitTerminal(re string, limit time.Duration) []string {
	b.t.Helper()
	rx := regexp.MustCompile(re)
	var s string
	var m []string
	if !eventually.Within(limit, func() bool { s = b.Terminal(); m = rx.FindStringSubmatch(s); return m != nil }) {
		b.t.Fatalf("terminal: no %q within %s; it shows:\n%s", re, limit, s)
	}
	return m
}

// Cookie-less HTTP helpers against the hub, for the steps done from Go.

// getJSON does a GET with a bearer token and returns the status and body.
func getJSON(t *testing.T, url, bearer string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+bearer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// agentConfigStart runs hostgate-agent with the credentials JSON the
// console showed as its --config file, as a user would.
func (e *Env) agentConfigStart(credsJSON, stateDir string) *Agent {
	e.t.Helper()
	_, bin := binaries(e.t)
	f := filepath.Join(e.t.TempDir(), "agent.json")
	if err := os.WriteFile(f, []byte(credsJSON), 0o600); err != nil {
		e.t.Fatal(err)
	}
	// The L1 listener stays off: its default port is the same for every
	// host, and the test does not use it.
	return &Agent{start(e.t, bin, map[string]string{"SHELL": "/bin/sh"}, "run", "--config", f, "--state-dir", stateDir, "--l1-listen", "off")}
}

// mustJSON decodes b into v or fails.
func mustJSON(t *testing.T, what string, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: decode %q: %v", what, firstN(string(b), 300), err)
	}
}

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
<button data-testid="nopay" onclick="window.open('/plain', '_blank', 'noopener')">no form</button>
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
		case r.URL.Path == "/plain":
			http.Error(w, "no form here", http.StatusMethodNotAllowed)
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

	// A tab without a form is reported, and leaves the browser working.
	tabs = chromedp.WaitNewTarget(b.ctx, func(i *target.Info) bool { return i.Type == "page" })
	b.Click("nopay")
	select {
	case id := <-tabs:
		if b.payInTab(id) {
			t.Fatal("a page without a form was taken for the checkout")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no new tab")
	}
	b.Click("go")
	b.WaitAttr(tid("out"), "data-v", "new value", 5*time.Second)
}
