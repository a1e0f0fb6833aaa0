package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
	"hostgate/internal/operations"
)

// The client API's operation routes (spec 4.5): each is a POST of
// {controls, path, data} that package operations checks, charges and
// sends to the host's agent; the agent's result is the answer.

// opBody is the body of an operation route whose data has type D.
type opBody[D any] struct {
	Controls int64  `json:"controls,omitempty" doc:"Operation code (docs/operations); optional where the route has one operation"`
	Path     string `json:"path,omitempty" doc:"Path, program or name the operation acts on"`
	Data     D      `json:"data,omitempty"`
}

type opIn[D any] struct {
	ID   string `path:"id" format:"uuid" doc:"Host id"`
	Body opBody[D]
}

// optOpIn is opIn for routes whose body may be left out.
type optOpIn[D any] struct {
	ID   string `path:"id" format:"uuid" doc:"Host id"`
	Body *opBody[D]
}

type opOut[R any] struct{ Body R }

// MetricsResult is the spec's MetricsResult (named apart from the
// metrics history rows, hosts.Metrics, in the OpenAPI document).
type MetricsResult agentproto.Metrics

// FileTextResult is the result of files/text, whose shape depends on the
// controls value: FileResult for create, remove and append, ReadResult for
// read (32), RemoveStringResult for remove string (64). It passes the
// agent's answer through and documents the three shapes as oneOf.
type FileTextResult struct{ raw json.RawMessage }

// MarshalJSON writes the agent's answer unchanged.
func (r FileTextResult) MarshalJSON() ([]byte, error) { return r.raw, nil }

// UnmarshalJSON keeps the agent's answer.
func (r *FileTextResult) UnmarshalJSON(b []byte) error {
	r.raw = append(r.raw[:0], b...)
	return nil
}

// Schema implements huma.SchemaProvider.
func (FileTextResult) Schema(reg huma.Registry) *huma.Schema {
	return &huma.Schema{OneOf: []*huma.Schema{
		reg.Schema(reflect.TypeFor[agentproto.FileResult](), true, ""),
		reg.Schema(reflect.TypeFor[agentproto.ReadResult](), true, ""),
		reg.Schema(reflect.TypeFor[agentproto.RemoveStringResult](), true, ""),
	}}
}

// noData is the data of operations that take none.
type noData struct{}

func (s *Server) clientOpRoutes() {
	opRoute[noData, agentproto.FileResult](s, "files/dir", "apiFilesDir",
		"Make (controls 1) or remove (2) a directory tree")
	opRoute[string, FileTextResult](s, "files/text", "apiFilesText",
		"File create (4), remove (8), append string (16), read string (32, ReadResult), remove string (64, RemoveStringResult)")
	opRoute[string, agentproto.UnzipResult](s, "files/zip", "apiFilesZip",
		"Unpack the zip file at path into the directory in data (128); entries escaping it refuse the archive")
	opRoute[agentproto.DownloadData, agentproto.DownloadResult](s, "files/download", "apiFilesDownload",
		"The host downloads data.url to path (256), atomically, reporting the SHA-256")
	opRoute[string, agentproto.ExecResult](s, "process/exec", "apiProcessExec",
		"Start path with the arguments in data, asynchronously (1024)")
	opRoute[agentproto.ShellData, agentproto.ShellResult](s, "process/shell", "apiProcessShell",
		"Run path with data.args synchronously (8192); the tree is killed at data.timeout_s")
	opRoute[agentproto.KillData, agentproto.KillResult](s, "process/kill", "apiProcessKill",
		"Stop processes of the executable name in path (4096): soft, then hard after data.timeout_s")
	optOpRoute[agentproto.ProcessListResult](s, "process/list", "apiProcessList",
		"List processes (2097152 = 1<<21); path optionally filters by executable name")
	optOpRoute[agentproto.SystemInfo](s, "system/info", "apiSystemInfo", "System information (16777216 = 1<<24)")
	optOpRoute[MetricsResult](s, "system/metrics", "apiSystemMetrics", "Current metrics, MetricsResult (33554432 = 1<<25)")
	opRoute[agentproto.ServiceData, agentproto.ServiceResult](s, "service/ctl", "apiServiceCtl",
		"Windows service control (67108864 = 1<<26); path is the service name")
	opRoute[agentproto.RegistryData, agentproto.RegistryResult](s, "registry/rw", "apiRegistryRW",
		"Windows registry read and write (134217728 = 1<<27); path is <hive>\\<key>")
	opRoute[agentproto.TaskData, agentproto.TaskResult](s, "scheduled-task/ctl", "apiScheduledTaskCtl",
		"Windows scheduled tasks (268435456 = 1<<28); path is the task name")
	opRoute[any, any](s, "", "apiControlsRaw",
		"Send any controls value to the host's agent; charged as its own route, or by control.raw.per_call "+
			"(no price unless an admin sets one) when it names no client API operation; 501 unsupported_control "+
			"when the agent does not carry it out")
	rawControlsEnum(s.api.OpenAPI().Components.Schemas)
	for _, route := range []string{"files/upload", "files/stream"} {
		op(s, clientOp(http.MethodPost, "/v1/api/hosts/{id}/"+route, "apiNotImplemented_"+route,
			"Not implemented (501)"), func(context.Context, *HostIDParam) (*OK, error) {
			return nil, apperr.New("not_implemented", route+" is not implemented")
		})
	}
}

// rawControlsEnum describes the controls property of the controls/raw
// body (OpBodyAny, used by that route only): any positive int64 is taken
// and carried to the agent, so it has no enum; the hub's table,
// agentproto.Controls, is listed as x-known-values and x-known-names, in
// its order: the one source the OpenAPI document and the SDKs follow
// (sdk/go/controls_parity_test.go). The other routes' bodies keep a plain
// integer: their routes check it.
func rawControlsEnum(reg huma.Registry) {
	body := reg.SchemaFromRef("#/components/schemas/" + schemaName(reflect.TypeFor[opBody[any]](), ""))
	old := body.Properties["controls"]
	values := make([]any, len(agentproto.Controls))
	names := make([]string, len(agentproto.Controls))
	for i, c := range agentproto.Controls {
		values[i], names[i] = c.Value, c.Name
	}
	one := 1.0
	ctl := &huma.Schema{Type: old.Type, Format: old.Format, Minimum: &one,
		Description: "Any positive controls value, carried to the host's agent (docs/operations.md, Raw control). " +
			"The known values are x-known-values, named by x-known-names; one the agent does not carry out answers " +
			"501 unsupported_control naming it, and 512 (UPLOAD_FILE) answers 501 not_implemented like files/upload.",
		Extensions: map[string]any{"x-known-values": values, "x-known-names": names}}
	ctl.PrecomputeMessages()
	body.Properties["controls"] = ctl
}

func clientOp(method, path, id, summary string) huma.Operation {
	return huma.Operation{OperationID: id, Method: method, Path: path, Summary: summary,
		Tags: []string{"client-api"}, Security: apiKeySecurity}
}

// routePath is the path of a route; "" is controls/raw.
func routePath(route string) string {
	if route == "" {
		return "/v1/api/hosts/{id}/controls/raw"
	}
	return "/v1/api/hosts/{id}/" + route
}

// opRoute registers an operation route taking data D and answering R.
func opRoute[D, R any](s *Server, route, id, summary string) {
	op(s, clientOp(http.MethodPost, routePath(route), id, summary),
		func(ctx context.Context, in *opIn[D]) (*opOut[R], error) {
			return runOp[D, R](ctx, s, clientCaller(ctx), route, in.ID, in.Body)
		})
}

// optOpRoute registers an operation route that takes no data and whose
// body may be left out.
func optOpRoute[R any](s *Server, route, id, summary string) {
	op(s, clientOp(http.MethodPost, routePath(route), id, summary),
		func(ctx context.Context, in *optOpIn[noData]) (*opOut[R], error) {
			var b opBody[noData]
			if in.Body != nil {
				b = *in.Body
			}
			return runOp[noData, R](ctx, s, clientCaller(ctx), route, in.ID, b)
		})
}

// caller is who an operation is run and charged for: the API key's user
// and key, or a console user (no key).
type caller struct{ UserID, KeyID string }

func clientCaller(ctx context.Context) caller {
	c := clientOf(ctx)
	return caller{UserID: c.UserID, KeyID: c.KeyID}
}

func runOp[D, R any](ctx context.Context, s *Server, c caller, route, hostID string, b opBody[D]) (*opOut[R], error) {
	data, err := json.Marshal(b.Data)
	if err != nil {
		return nil, apperr.New(apperr.CodeInvalidBody, "data cannot be encoded")
	}
	if string(data) == "null" || string(data) == "{}" && isNoData[D]() {
		data = nil
	}
	res, err := s.cfg.Operations.Run(ctx, operations.Call{
		Route: route, UserID: c.UserID, APIKeyID: c.KeyID, HostID: hostID,
		Controls: b.Controls, Path: b.Path, Data: data,
	})
	if err != nil {
		return nil, err
	}
	out := &opOut[R]{}
	if err := json.Unmarshal(res, &out.Body); err != nil {
		return nil, apperr.New(operations.CodeOperationFailed, "the agent's answer is not a valid result")
	}
	return out, nil
}

func isNoData[D any]() bool {
	var d D
	_, ok := any(d).(noData)
	return ok
}
