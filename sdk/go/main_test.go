package hostgate

import (
	"os"
	"testing"

	"hostgate/internal/hubtest"
)

// Every answer the real hubs of these tests give the SDK must be in the
// hub's OpenAPI document (docs/api.md).
func TestMain(m *testing.M) {
	hubtest.RecordAnswers()
	os.Exit(hubtest.CheckAnswersDocumented(m.Run()))
}
