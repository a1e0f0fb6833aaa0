package httpapi_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"hostgate/internal/httpapi"
	"hostgate/internal/hubtest"
)

// bodyOp is one operation of the router's OpenAPI document that takes a
// request body.
type bodyOp struct {
	ID, Method, Path string
	ContentType      string
	Auth             string // "admin", "api", "user" or "" (public)
}

// bodyOps lists the operations of doc (an OpenAPI document as JSON) that
// take a request body, sorted by operation id, so that a new route is
// fuzzed without a change here.
func bodyOps(t testing.TB, doc []byte) []bodyOp {
	t.Helper()
	var d struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			RequestBody *struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"requestBody"`
			Security []map[string][]string `json:"security"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatalf("decode the OpenAPI document: %v", err)
	}
	var ops []bodyOp
	for path, item := range d.Paths {
		for method, op := range item {
			if op.RequestBody == nil || op.OperationID == "" {
				continue
			}
			o := bodyOp{ID: op.OperationID, Method: strings.ToUpper(method), Path: path, ContentType: "application/json"}
			if _, ok := op.RequestBody.Content["application/json"]; !ok {
				for ct := range op.RequestBody.Content {
					o.ContentType = ct
				}
			}
			for _, s := range op.Security {
				switch {
				case s["adminToken"] != nil:
					o.Auth = "admin"
				case s["apiKey"] != nil:
					o.Auth = "api"
				case s["userToken"] != nil:
					o.Auth = "user"
				}
			}
			ops = append(ops, o)
		}
	}
	slices.SortFunc(ops, func(a, b bodyOp) int { return strings.Compare(a.ID, b.ID) })
	return ops
}

// bodyFuzzEnv is a real hub (embedded SQLite) seeded with a user, an API
// key of theirs, a host, a filter and a schedule, an owner admin and a
// second admin to act on.
type bodyFuzzEnv struct {
	h      *hubtest.Hub
	http   *http.Client
	ops    []bodyOp
	tokens map[string]string // Auth -> bearer credential
	params map[string]string // path prefix before "{id}" -> id
}

func newBodyFuzzEnv(t testing.TB) *bodyFuzzEnv {
	t.Helper()
	h := hubtest.Start(t, hubtest.Embedded)
	c := h.Client(t)
	doc := c.Do("GET", "/v1/openapi.json", nil).Want(t, 200, "").Body
	u := h.Register(t)
	user := c.As(u.AccessToken)
	var key struct{ Secret string }
	user.Do("POST", "/v1/user/api-keys", map[string]string{"name": "fuzz"}).Want(t, 200, "").JSON(t, &key)
	var host, filter, schedule struct{ ID string }
	user.Do("POST", "/v1/user/hosts", map[string]string{"name": "fuzz"}).Want(t, 200, "").JSON(t, &host)
	user.Do("POST", "/v1/user/filters", map[string]any{"name": "fuzz", "query": map[string]any{"tags": []string{"env"}}}).
		Want(t, 201, "").JSON(t, &filter)
	user.Do("POST", "/v1/user/schedules", map[string]any{"name": "fuzz", "cron": "30 2 * * *", "paused": true,
		"job": map[string]any{"target": map[string]any{"host_ids": []string{host.ID}}, "operation": map[string]any{"controls": 1 << 24}}}).
		Want(t, 201, "").JSON(t, &schedule)
	ownerTok, _ := h.Admin(t, "owner")
	_, otherAdmin := h.Admin(t, "viewer")
	return &bodyFuzzEnv{
		h:      h,
		http:   &http.Client{Timeout: 30 * time.Second},
		ops:    bodyOps(t, doc),
		tokens: map[string]string{"admin": ownerTok, "api": key.Secret, "user": u.AccessToken},
		params: map[string]string{
			"/v1/admin/admins/":            otherAdmin,
			"/v1/admin/hosts/":             host.ID,
			"/v1/admin/users/":             u.User.ID,
			"/v1/api/hosts/":               host.ID,
			"/v1/user/hosts/":              host.ID,
			"/v1/api/filters/":             filter.ID,
			"/v1/user/filters/":            filter.ID,
			"/v1/api/schedules/":           schedule.ID,
			"/v1/user/schedules/":          schedule.ID,
			"/v1/public/webhooks/payment/": "dummy",
		},
	}
}

// path fills in op's path parameters: the seeded object where the path
// names one, an id nothing has otherwise (the body is decoded and checked
// before the object is looked up).
func (e *bodyFuzzEnv) path(op bodyOp) string {
	p := op.Path
	for {
		i := strings.Index(p, "{")
		if i < 0 {
			return p
		}
		j := strings.Index(p[i:], "}")
		v, ok := e.params[p[:i]]
		if !ok {
			v = "fuzz-missing-" + p[i+1:i+j]
		}
		p = p[:i] + v + p[i+j+1:]
	}
}

// pick returns the operation named name, else one chosen by its bytes, so
// that a mutated name still sends the body somewhere.
func (e *bodyFuzzEnv) pick(name string) bodyOp {
	for _, o := range e.ops {
		if o.ID == name {
			return o
		}
	}
	var n int
	for _, b := range []byte(name) {
		n += int(b)
	}
	return e.ops[n%len(e.ops)]
}

// send posts body to op with valid credentials and checks the answer: no
// 500, and every error is {error, message}.
func (e *bodyFuzzEnv) send(t *testing.T, op bodyOp, body []byte) {
	t.Helper()
	req, err := http.NewRequest(op.Method, e.h.URL+e.path(op), bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", op.ContentType)
	if tok := e.tokens[op.Auth]; tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", op.ID, body, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("%s: read the answer: %v", op.ID, err)
	}
	if resp.StatusCode == http.StatusInternalServerError {
		t.Fatalf("%s %q: 500 %s", op.ID, body, b)
	}
	if resp.StatusCode >= 300 {
		var ans struct {
			Error   *string `json:"error"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(b, &ans) != nil || ans.Error == nil || *ans.Error == "" || ans.Message == nil || *ans.Message == "" {
			t.Fatalf("%s %q: %d answer is not {error, message}: %s", op.ID, body, resp.StatusCode, b)
		}
	}
}

// ready fails the test unless the hub still answers /readyz.
func (e *bodyFuzzEnv) ready(t *testing.T) {
	t.Helper()
	resp, err := e.http.Get(e.h.URL + "/readyz")
	if err != nil {
		t.Fatalf("/readyz: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("/readyz answered %d", resp.StatusCode)
	}
}

// FuzzRequestBodies sends each input as the request body of an operation
// of the real router (the one the input names, else one its name picks)
// with valid credentials: no input gets a 500 or panics the hub, every
// error is {error, message}, and the hub still answers /readyz. One hub
// serves every input of a process. Its seed corpus (testdata/fuzz) holds a
// valid body and malformed ones for every operation;
// TestRequestBodySeedsCoverEveryOperation keeps it so. The seeds run in
// parallel (as many at once as -parallel allows; T.Parallel has no effect
// while fuzzing): each is one request checked on its own, and fuzz targets
// run after every test of the package, so run one at a time they left a
// core idle for the length of the corpus.
func FuzzRequestBodies(f *testing.F) {
	e := newBodyFuzzEnv(f)
	f.Fuzz(func(t *testing.T, op string, body []byte) {
		t.Parallel()
		e.send(t, e.pick(op), body)
		e.ready(t)
	})
}

// TestRequestBodySeedsCoverEveryOperation fails when an operation with a
// request body has no valid JSON body among FuzzRequestBodies's seeds, so
// that a new route gets its seed with it. The operations come from
// httpapi.Document, the router's own document with no hub behind it:
// what a hub serves (TestOpenAPIFileIsCurrent), without starting one.
func TestRequestBodySeedsCoverEveryOperation(t *testing.T) {
	t.Parallel()
	doc, err := httpapi.Document("test")
	if err != nil {
		t.Fatal(err)
	}
	ops := bodyOps(t, doc)
	seeds := readBodySeeds(t)
	if len(ops) < 10 {
		t.Fatalf("only %d operations with a body; the document walk found nothing", len(ops))
	}
	for _, o := range ops {
		valid := 0
		for _, s := range seeds[o.ID] {
			if json.Valid(s) {
				valid++
			}
		}
		if valid == 0 || len(seeds[o.ID]) < 2 {
			t.Errorf("%s (%s %s): %d seeds, %d of them valid JSON; want a valid body and a malformed one in testdata/fuzz/FuzzRequestBodies",
				o.ID, o.Method, o.Path, len(seeds[o.ID]), valid)
		}
	}
}

// readBodySeeds reads FuzzRequestBodies's seed corpus: operation id ->
// bodies.
func readBodySeeds(t *testing.T) map[string][][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzRequestBodies", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seed corpus (%v)", err)
	}
	seeds := make(map[string][][]byte)
	for _, name := range files {
		op, body, err := parseSeed(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seeds[op] = append(seeds[op], body)
	}
	return seeds
}

// parseSeed reads a corpus file of (string, []byte) in the "go test fuzz
// v1" format.
func parseSeed(name string) (op string, body []byte, err error) {
	f, err := os.Open(name)
	if err != nil {
		return "", nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return "", nil, err
	}
	if len(lines) != 3 || lines[0] != "go test fuzz v1" ||
		!strings.HasPrefix(lines[1], "string(") || !strings.HasPrefix(lines[2], "[]byte(") {
		return "", nil, errSeedFormat
	}
	if op, err = strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "string("), ")")); err != nil {
		return "", nil, err
	}
	b, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[2], "[]byte("), ")"))
	return op, []byte(b), err
}

var errSeedFormat = errors.New("not a (string, []byte) corpus file")
