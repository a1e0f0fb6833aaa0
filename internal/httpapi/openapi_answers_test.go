package httpapi_test

import (
	"slices"
	"testing"

	"hostgate/internal/hubtest"
)

// Every answer this package's tests get from a hub must be in the OpenAPI
// document: TestMain (terminal_test.go) records them and checks after the
// tests (hubtest.CheckAnswersDocumented).

// TestUndocumentedAnswers checks the check: a status an operation lists
// passes only with a listed content type; one it does not list, or lists
// only as "default", is reported.
func TestUndocumentedAnswers(t *testing.T) {
	doc := []byte(`{"paths": {"/x/{id}": {"get": {"responses": {
		"200": {"content": {"text/plain; charset=utf-8": {}}},
		"204": {},
		"402": {"$ref": "#/components/responses/Error402Charged"},
		"409": {"$ref": "#/components/responses/Error409"},
		"default": {"content": {"application/json": {}}}}}}},
		"components": {"responses": {
			"Error402Charged": {"content": {"application/json": {}}, "headers": {"X-Hostgate-Charged": {}, "X-Hostgate-Balance": {}}},
			"Error409": {"content": {"application/json": {}}}}}}`)
	key := func(path string, status int, mediaType string, charged bool) hubtest.AnswerKey {
		return hubtest.AnswerKey{Method: "GET", Pattern: path, Status: status, MediaType: mediaType, Charged: charged}
	}
	seen := map[hubtest.AnswerKey]int{
		key("/x/{id}", 200, "text/plain", false):       1,
		key("/x/{id}", 204, "", false):                 1,
		key("/x/{id}", 402, "application/json", true):  1,
		key("/y", 200, "application/json", false):      1, // not a documented route
		key("/x/{id}", 200, "application/json", false): 2,
		key("/x/{id}", 404, "application/json", false): 3,
		key("/x/{id}", 204, "", true):                  4,
		key("/x/{id}", 409, "application/json", true):  5,
	}
	got := hubtest.UndocumentedAnswers(doc, seen)
	want := []string{
		"GET /x/{id}: 200 application/json ×2 (content types listed: [text/plain; charset=utf-8])",
		"GET /x/{id}: 204  ×4 (the charge headers are not listed)",
		"GET /x/{id}: 404 application/json ×3 (status not listed)",
		"GET /x/{id}: 409 application/json ×5 (the charge headers are not listed)",
	}
	if !slices.Equal(got, want) {
		t.Errorf("undocumentedAnswers =\n%q\nwant\n%q", got, want)
	}
}
