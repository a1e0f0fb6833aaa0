package hubtest

import (
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"hostgate/internal/httpapi"
)

// The OpenAPI document must describe what the hub really answers
// (docs/api.md): a package whose tests drive hubs records every answer
// they get (httpapi.ObserveAnswers sees them all, whichever hub served
// them) and, once its tests are done, fails the run listing each answer
// the document does not describe. internal/httpapi and sdk/go do.

// AnswerKey is one kind of answer: route, status, media type, and
// whether it carried the charge headers.
type AnswerKey struct {
	Method, Pattern string
	Status          int
	MediaType       string
	Charged         bool
}

var answers = struct {
	sync.Mutex
	seen map[AnswerKey]int
}{seen: map[AnswerKey]int{}}

// RecordAnswers starts recording every answer of every hub of the
// process (httpapi.ObserveAnswers); call it in TestMain before m.Run.
func RecordAnswers() {
	httpapi.ObserveAnswers(func(a httpapi.Answered) {
		if a.Pattern == "" {
			return // no route: TestOpenAPIMatchesRoutes covers the routes
		}
		answers.Lock()
		answers.seen[AnswerKey(a)]++
		answers.Unlock()
	})
}

// CheckAnswersDocumented returns the exit code of a run whose tests ended
// with code: code, or 1, after listing them on stderr, when an answer
// recorded since RecordAnswers is not in the hub's OpenAPI document.
//
//	func TestMain(m *testing.M) {
//		hubtest.RecordAnswers()
//		os.Exit(hubtest.CheckAnswersDocumented(m.Run()))
//	}
func CheckAnswersDocumented(code int) int {
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
	missing := UndocumentedAnswers(doc, answers.seen)
	if len(missing) == 0 {
		return code
	}
	fmt.Fprintf(os.Stderr, "--- FAIL: the OpenAPI document lacks %d answers the hub gave in these tests "+
		"(method path: status media type ×times); document them (internal/httpapi/openapi_answers.go or the route's huma.Operation):\n", len(missing))
	for _, m := range missing {
		fmt.Fprintln(os.Stderr, "    "+m)
	}
	return 1
}

// UndocumentedAnswers lists, sorted, the answers of seen that doc (an
// OpenAPI document) does not describe: a status the operation does not
// list explicitly ("default" does not count), a media type its response
// does not list, or charge headers it does not document. Routes the
// document lacks are skipped (TestOpenAPIMatchesRoutes covers them).
func UndocumentedAnswers(doc []byte, seen map[AnswerKey]int) []string {
	type response struct {
		Ref     string                     `json:"$ref"`
		Content map[string]json.RawMessage `json:"content"`
		Headers map[string]json.RawMessage `json:"headers"`
	}
	var d struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Responses map[string]response `json:"responses"`
		} `json:"components"`
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
			Responses map[string]response `json:"responses"`
		}
		if err := json.Unmarshal(raw, &op); err != nil {
			missing = append(missing, fmt.Sprintf("%s %s: operation does not parse: %v", k.Method, k.Pattern, err))
			continue
		}
		what := fmt.Sprintf("%s %s: %d %s ×%d", k.Method, k.Pattern, k.Status, k.MediaType, n)
		resp, ok := op.Responses[strconv.Itoa(k.Status)]
		if name, shared := strings.CutPrefix(resp.Ref, "#/components/responses/"); ok && shared {
			resp, ok = d.Components.Responses[name]
		}
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
