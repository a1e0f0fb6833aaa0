package httpapi_test

import (
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"hostgate/internal/httpapi"
)

// The OpenAPI document must describe what the hub really answers: every
// answer any test of this package gets from a hub (httpapi.ObserveAnswers
// sees them all, whichever hub served them) must be, for its route, a
// status the operation lists explicitly (a "default" response does not
// count) with the answer's media type among that response's content
// types. checkAnswersDocumented runs after the package's tests
// (TestMain) and fails the run listing what the document lacks.

type answerKey struct {
	Method, Pattern string
	Status          int
	MediaType       string
	Charged         bool
}

var answers = struct {
	sync.Mutex
	seen map[answerKey]int
}{seen: map[answerKey]int{}}

func recordAnswers() {
	httpapi.ObserveAnswers(func(a httpapi.Answered) {
		if a.Pattern == "" {
			return // no route: TestOpenAPIMatchesRoutes covers the routes
		}
		answers.Lock()
		answers.seen[answerKey(a)]++
		answers.Unlock()
	})
}

// checkAnswersDocumented returns the exit code of a run whose tests ended
// with code: code, or 1 when an answer seen is not documented.
func checkAnswersDocumented(code int) int {
	httpapi.ObserveAnswers(nil)
	answers.Lock()
	defer answers.Unlock()
	if len(answers.seen) == 0 {
		return code
	}
	doc, err := httpapi.Document("test")
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapi answers: build the document:", err)
		return 1
	}
	missing := undocumentedAnswers(doc, answers.seen)
	if len(missing) == 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "--- FAIL: the OpenAPI document lacks %d answers the hub gave in this package's tests "+
		"(method path: status media type ×times); document them (server.go, the route's huma.Operation):\n", len(missing))
	for _, m := range missing {
		fmt.Fprintln(os.Stderr, "    "+m)
	}
	return 1
}

// undocumentedAnswers lists, sorted, the answers of seen that doc (an
// OpenAPI document) does not describe.
func undocumentedAnswers(doc []byte, seen map[answerKey]int) []string {
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return []string{"the document does not parse: " + err.Error()}
	}
	var missing []string
	for k, n := range seen {
		raw, ok := d.Paths[k.Pattern][strings.ToLower(k.Method)]
		if !ok {
			continue // not a documented route (the console, say)
		}
		var op struct {
			Responses map[string]struct {
				Content map[string]json.RawMessage `json:"content"`
				Headers map[string]json.RawMessage `json:"headers"`
			} `json:"responses"`
		}
		if err := json.Unmarshal(raw, &op); err != nil {
			missing = append(missing, fmt.Sprintf("%s %s: operation does not parse: %v", k.Method, k.Pattern, err))
			continue
		}
		what := fmt.Sprintf("%s %s: %d %s ×%d", k.Method, k.Pattern, k.Status, k.MediaType, n)
		resp, ok := op.Responses[strconv.Itoa(k.Status)]
		switch {
		case !ok:
			missing = append(missing, what+" (status not listed)")
		case k.MediaType != "" && k.Status != 101 && k.Status != 204 && k.Status != 304 &&
			!slices.ContainsFunc(mapKeys(resp.Content), func(ct string) bool { return mediaType(ct) == k.MediaType }):
			missing = append(missing, fmt.Sprintf("%s (content types listed: %v)", what, mapKeys(resp.Content)))
		case k.Charged && (resp.Headers["X-Hostgate-Charged"] == nil || resp.Headers["X-Hostgate-Balance"] == nil):
			missing = append(missing, what+" (the charge headers are not listed)")
		}
	}
	slices.Sort(missing)
	return missing
}

func mediaType(ct string) string {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct
	}
	return mt
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestUndocumentedAnswers checks the check: a status an operation lists
// passes only with a listed content type; one it does not list, or lists
// only as "default", is reported.
func TestUndocumentedAnswers(t *testing.T) {
	doc := []byte(`{"paths": {"/x/{id}": {"get": {"responses": {
		"200": {"content": {"text/plain; charset=utf-8": {}}},
		"204": {},
		"402": {"content": {"application/json": {}}, "headers": {"X-Hostgate-Charged": {}, "X-Hostgate-Balance": {}}},
		"default": {"content": {"application/json": {}}}}}}}}`)
	seen := map[answerKey]int{
		{"GET", "/x/{id}", 200, "text/plain", false}:       1,
		{"GET", "/x/{id}", 204, "", false}:                 1,
		{"GET", "/x/{id}", 402, "application/json", true}:  1,
		{"GET", "/y", 200, "application/json", false}:      1, // not a documented route
		{"GET", "/x/{id}", 200, "application/json", false}: 2,
		{"GET", "/x/{id}", 404, "application/json", false}: 3,
		{"GET", "/x/{id}", 204, "", true}:                  4,
	}
	got := undocumentedAnswers(doc, seen)
	want := []string{
		"GET /x/{id}: 200 application/json ×2 (content types listed: [text/plain; charset=utf-8])",
		"GET /x/{id}: 204  ×4 (the charge headers are not listed)",
		"GET /x/{id}: 404 application/json ×3 (status not listed)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("undocumentedAnswers =\n%q\nwant\n%q", got, want)
	}
}
