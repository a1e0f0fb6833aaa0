package httpapi

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"
)

// The OpenAPI document says what each route answers, status by status,
// with the content type of each (openapi_answers_test.go holds it to what
// the hub answers in the tests). A route's registration documents its
// success; documentAnswers adds the error answers every route of a kind
// can give, the charge headers of charged routes, and what hand-written
// routes (raw) answer besides JSON.

// chargedOps are the operations that charge the caller (docs/billing.md):
// their answers carry X-Hostgate-Charged and X-Hostgate-Balance once the
// call reached the charge step.
var chargedOps = []string{
	"apiListHosts", "apiGetHost", "apiPingHost", "apiPutL1Config",
	"apiFilesDir", "apiFilesText", "apiFilesZip", "apiFilesDownload",
	"apiProcessExec", "apiProcessShell", "apiProcessKill", "apiProcessList",
	"apiSystemInfo", "apiSystemMetrics", "apiServiceCtl", "apiRegistryRW", "apiScheduledTaskCtl",
	"apiControlsRaw", "apiOrchestrateStart", "apiOrchestrateShutdown",
	"apiShellOpen", "apiShellWrite", "apiShellRead", "apiShellResize", "apiShellClose",
	"userSystemInfo",
}

// agentOps send a command to the host's agent after the charge: they can
// also answer that the agent is away, failed or did not answer.
var agentOps = []string{
	"apiFilesDir", "apiFilesText", "apiFilesZip", "apiFilesDownload",
	"apiProcessExec", "apiProcessShell", "apiProcessKill", "apiProcessList",
	"apiSystemInfo", "apiSystemMetrics", "apiServiceCtl", "apiRegistryRW", "apiScheduledTaskCtl",
	"apiControlsRaw", "apiOrchestrateStart", "apiOrchestrateShutdown", "apiPingHost", "userSystemInfo",
}

// errorText describes an error status in the document.
var errorText = map[int]string{
	400: "A bad parameter or body: invalid_body, invalid_id, invalid_query, or a field's own code (docs/api.md)",
	401: "No valid credential: unauthorized, invalid_token",
	402: "insufficient_balance: the balance does not cover the call; nothing was taken",
	403: "forbidden (a role or ownership rule), host_banned, step_up_required, account_suspended",
	404: "not_found: no such resource, or not the caller's",
	405: "method_not_allowed",
	408: "body_timeout: the body did not arrive within HOSTGATE_HTTP_BODY_TIMEOUT of the headers",
	409: "A conflict with the resource's state, e.g. host_offline (the agent is not connected)",
	410: "terminal_ended",
	413: "body_too_large: the body is over 1 MiB (a payment notification: 64 KiB)",
	415: "unsupported_media_type: the body is not JSON",
	422: "The agent tried and failed: target_not_found, permission_denied, operation_failed… (docs/operations.md)",
	423: "account_locked: too many failed attempts; retry later",
	429: "rate_limited: retry after Retry-After seconds",
	500: "internal: an unexpected failure (the request id is in the log)",
	501: "not_implemented",
	502: "The agent's answer could not be used",
	503: "A dependency is unavailable",
	504: "agent_timeout: the agent did not answer in time (a charge made is not refunded)",
}

func (s *Server) documentAnswers() {
	oa := s.api.OpenAPI()
	d := &answerDoc{comps: oa.Components, problem: &huma.MediaType{Schema: &huma.Schema{Ref: "#/components/schemas/Problem"}}}
	chargeHeaderDocs(oa.Components)
	for path, item := range oa.Paths {
		for _, o := range []*huma.Operation{item.Get, item.Put, item.Post, item.Delete, item.Patch, item.Head, item.Options} {
			if o == nil {
				continue
			}
			if fix := answerDocs[o.OperationID]; fix != nil {
				fix(o, d)
			}
			for _, st := range extraErrors[o.OperationID] {
				d.addError(o, st)
			}
			if _, generated := o.Responses["default"]; generated {
				for _, st := range commonErrors(path, o) {
					d.addError(o, st)
				}
			}
			if _, ws := o.Responses["101"]; !ws || o.OperationID == "agentWS" {
				// Any route can fail unexpectedly (the request id is
				// in the log); a WebSocket after its upgrade cannot.
				d.addError(o, 500)
			}
			if slices.Contains(agentOps, o.OperationID) {
				for _, st := range []int{403, 409, 422, 504} {
					d.addError(o, st)
				}
			}
			if slices.Contains(chargedOps, o.OperationID) {
				d.addError(o, 402)
				d.addChargeHeaders(o)
			}
			if _, limited := rateLimitedOps[o.OperationID]; limited {
				d.rateLimited(o)
			}
		}
	}
}

// rateLimited documents the abuse limit's answer (ratelimit.go): 429
// with Retry-After, and for the payment webhook, which reads its body
// itself, its own body limit.
func (d *answerDoc) rateLimited(o *huma.Operation) {
	d.inline(o, http.StatusTooManyRequests, errorText[http.StatusTooManyRequests]+
		"; a limit per client address or per account (docs/security.md, \"Abuse limits\")")
	o.Responses["429"].Headers = map[string]*huma.Param{"Retry-After": {Description: "Seconds until the limit's window ends",
		Schema: &huma.Schema{Type: "integer"}}}
	if o.OperationID == "paymentWebhook" {
		d.addError(o, http.StatusRequestEntityTooLarge)
		d.addError(o, http.StatusRequestTimeout)
	}
}

// answerDoc adds error answers to operations: shared components
// (#/components/responses/ErrorNNN, and ErrorNNNCharged with the charge
// headers) unless an operation describes its own.
type answerDoc struct {
	comps   *huma.Components
	problem *huma.MediaType
}

// commonErrors are the errors any operation registered with op answers,
// by what it takes: credentials, parameters, a body.
func commonErrors(path string, o *huma.Operation) []int {
	var st []int
	if len(o.Security) > 0 {
		st = append(st, 401)
	}
	if _, ok := o.Extensions["x-roles"]; ok || slices.ContainsFunc(o.Security, func(m map[string][]string) bool { _, u := m["userToken"]; return u }) {
		// Admin roles; a suspended user, or a cookie-authenticated write
		// from another site.
		st = append(st, 403)
	}
	if len(o.Parameters) > 0 || o.RequestBody != nil || strings.Contains(path, "{") {
		st = append(st, 400)
	}
	if strings.Contains(path, "{") {
		st = append(st, 404)
	}
	if o.RequestBody != nil {
		st = append(st, 408, 413, 415)
	}
	return st
}

// addError adds the {error, message} answer of status to o: a reference
// to the shared component, or, where o already describes that status,
// the JSON error body to its own.
func (d *answerDoc) addError(o *huma.Operation, status int) {
	key := strconv.Itoa(status)
	if o.Responses == nil {
		o.Responses = map[string]*huma.Response{}
	}
	if r := o.Responses[key]; r != nil {
		if r.Ref == "" {
			if r.Content == nil {
				r.Content = map[string]*huma.MediaType{}
			}
			if r.Content["application/json"] == nil {
				r.Content["application/json"] = d.problem
			}
		}
		return
	}
	o.Responses[key] = &huma.Response{Ref: "#/components/responses/" + d.component(status, false)}
}

// inline gives o its own description of the error answer of status.
func (d *answerDoc) inline(o *huma.Operation, status int, desc string) {
	o.Responses[strconv.Itoa(status)] = &huma.Response{Description: desc,
		Content: map[string]*huma.MediaType{"application/json": d.problem}}
}

// component names, and defines once, the shared answer of status.
func (d *answerDoc) component(status int, charged bool) string {
	name := "Error" + strconv.Itoa(status)
	if charged {
		name += "Charged"
	}
	if d.comps.Responses == nil {
		d.comps.Responses = map[string]*huma.Response{}
	}
	if d.comps.Responses[name] == nil {
		desc := errorText[status]
		if desc == "" {
			desc = http.StatusText(status)
		}
		r := &huma.Response{Description: desc, Content: map[string]*huma.MediaType{"application/json": d.problem}}
		if charged {
			r.Headers = chargeHeaderRefs()
		}
		d.comps.Responses[name] = r
	}
	return name
}

func chargeHeaderRefs() map[string]*huma.Param {
	return map[string]*huma.Param{
		HeaderCharged: {Ref: "#/components/headers/" + HeaderCharged},
		HeaderBalance: {Ref: "#/components/headers/" + HeaderBalance},
	}
}

// addChargeHeaders documents the charge headers on every answer of a
// charged operation that can come after the charge.
func (d *answerDoc) addChargeHeaders(o *huma.Operation) {
	for status, r := range o.Responses {
		if status == "default" || slices.Contains([]string{"401", "403", "413", "415"}, status) {
			// Always refused before the charge. The others may come
			// before it (no headers) or after it (an agent's bad_args
			// 400, game_dir_not_found 404, 409, 410, 422, 5xx).
			continue
		}
		if r.Ref != "" {
			st, _ := strconv.Atoi(status)
			r.Ref = "#/components/responses/" + d.component(st, true)
			continue
		}
		if r.Headers == nil {
			r.Headers = map[string]*huma.Param{}
		}
		maps.Copy(r.Headers, chargeHeaderRefs())
	}
}

// chargeHeaderDocs are the components the charge headers refer to.
func chargeHeaderDocs(c *huma.Components) {
	if c.Headers == nil {
		c.Headers = map[string]*huma.Header{}
	}
	number := `^-?[0-9]+(\.[0-9]{1,3})?$`
	c.Headers[HeaderCharged] = &huma.Header{
		Description: "Tokens this call took, a decimal number written as balances are (\"5\", \"0.5\"); \"0\" in free mode, " +
			"at a price of zero and on a 402. Present once the call reached the charge step, whatever the outcome: " +
			"a charge is not refunded when the command then fails (docs/billing.md).",
		Schema: &huma.Schema{Type: "string", Pattern: number},
	}
	c.Headers[HeaderBalance] = &huma.Header{
		Description: "The balance after the charge (on a 402, the balance that fell short), written as X-Hostgate-Charged. " +
			"Absent when no balance was read: free mode, or a price of zero.",
		Schema: &huma.Schema{Type: "string", Pattern: number},
	}
}

// extraErrors are the errors of single operations beyond their kind's.
var extraErrors = map[string][]int{
	"login":                    {401, 403, 423},
	"adminLogin":               {401, 423},
	"adminRefresh":             {401, 403},
	"adminLogout":              {401, 403},
	"adminCreateAdmin":         {409},
	"adminSetAdminRole":        {409},
	"adminDisableAdmin":        {409},
	"logout":                   {401, 403},
	"refresh":                  {401, 403},
	"register":                 {409},
	"changePassword":           {423},
	"createRecharge":           {503},
	"adminPublishVersion":      {409},
	"adminYankVersion":         {409},
	"adminPushUpgrade":         {409},
	"adminRefundRecharge":      {409},
	"adminAdjustBalance":       {402, 409},
	"userRetryWebhookDelivery": {409},
	"apiPutL1Config":           {409},
	"userPutL1Config":          {409},
	"apiShellOpen":             {409},
	"apiShellWrite":            {410},
	"apiShellResize":           {410},
	"agentOnline":              {401, 403},
	"agentHeartbeat":           {401, 403},
	"agentTokenRefresh":        {401, 403},
	"agentSettings":            {401, 409},
	"agentWS":                  {401, 403, 503},
	"userTerminalWS":           {400, 401, 403},
	"adminTerminalWS":          {400, 401, 403},
	"l1Gateway":                {429},
	"apiControlsRaw":           {501},
	"dummyCheckoutPage":        {404},
	"dummyCheckoutPay":         {404},
}

// answerDocs complete the answers of single operations.
var answerDocs = map[string]func(o *huma.Operation, d *answerDoc){
	"apiInstaller": installerAnswers,
	"userInstaller": func(o *huma.Operation, d *answerDoc) {
		installerAnswers(o, d)
		r := o.Responses["200"]
		r.Description = "The PowerShell installer as an attachment, install-<host_id>.ps1, text/plain; charset=utf-8"
		delete(r.Content, "application/octet-stream")
	},
	"oneLineInstaller":               oneLineAnswers,
	"apiNotImplemented_files/upload": notImplementedAnswers,
	"apiNotImplemented_files/stream": notImplementedAnswers,
	"paymentWebhook":                 paymentWebhookAnswers,
	"agentDownload":                  agentDownloadAnswers,
	"l1Gateway": func(o *huma.Operation, _ *answerDoc) {
		o.Responses["200"].Content = map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "object",
			Description: "The legacy answer (docs/l1.md): code 0 done, 7 refused with msg",
			Properties: map[string]*huma.Schema{
				"code": {Type: "integer", Enum: []any{0, 7}}, "data": {}, "msg": {Type: "string"},
			}}}}
	},
	"openapi": func(o *huma.Operation, _ *answerDoc) {
		o.Responses["200"].Content = map[string]*huma.MediaType{"application/json": {Schema: &huma.Schema{Type: "object"}}}
	},
}

// installerAnswers: the file, by format, as an attachment.
func installerAnswers(o *huma.Operation, d *answerDoc) {
	binary := &huma.Schema{Type: "string", Format: "binary"}
	o.Responses["200"] = &huma.Response{
		Description: "The installer as an attachment, install-<host_id>.<format>: ps1 as text/plain; charset=utf-8, " +
			"cmd and exe as application/octet-stream (exe: the agent executable with the provisioning payload appended).",
		Content: map[string]*huma.MediaType{
			"text/plain; charset=utf-8": {Schema: &huma.Schema{Type: "string"}},
			"application/octet-stream":  {Schema: binary},
		},
		Headers: map[string]*huma.Param{
			"Content-Disposition": {Description: `attachment; filename="install-<host_id>.<ps1|cmd|exe>"`, Schema: &huma.Schema{Type: "string"}},
			"Cache-Control":       {Description: "no-store", Schema: &huma.Schema{Type: "string"}},
		},
	}
	d.inline(o, 503, "exe_not_configured: the hub has no agent executable to install (GATEWAY_EXE_URL); nothing is issued")
}

// oneLineAnswers: the script, or the hub's {error, message}.
func oneLineAnswers(o *huma.Operation, d *answerDoc) {
	o.Responses["200"].Content = map[string]*huma.MediaType{"text/plain; charset=utf-8": {Schema: &huma.Schema{Type: "string"}}}
	for _, st := range []int{404, 405, 429, 503} {
		d.addError(o, st)
	}
	d.inline(o, 429, errorText[429])
	o.Responses["429"].Headers = map[string]*huma.Param{"Retry-After": {Schema: &huma.Schema{Type: "integer"}}}
}

func notImplementedAnswers(o *huma.Operation, d *answerDoc) {
	delete(o.Responses, "200")
	d.inline(o, http.StatusNotImplemented, "not_implemented: this route is reserved (spec 4.5); it never does anything")
	o.Description = "Always 501 not_implemented, after authentication and the host id's check."
}

// paymentWebhookAnswers: each provider's request body and answer.
func paymentWebhookAnswers(o *huma.Operation, d *answerDoc) {
	o.RequestBody = &huma.RequestBody{
		Required:    true,
		Description: "dummy: JSON; fourthparty: the EPay notification, form-encoded and signed.",
		Content: map[string]*huma.MediaType{
			"application/json": {Schema: &huma.Schema{Type: "object", Required: []string{"order_no", "amount_cny"},
				Properties: map[string]*huma.Schema{
					"order_no":   {Type: "string"},
					"amount_cny": {Type: "number", Description: "The order's amount in CNY"},
				}}},
			"application/x-www-form-urlencoded": {Schema: &huma.Schema{Type: "object",
				Description: "EPay notification fields: pid, trade_no, out_trade_no (the order_no), type, name, money, " +
					"trade_status (TRADE_SUCCESS), sign, sign_type",
				AdditionalProperties: &huma.Schema{Type: "string"}}},
		},
	}
	o.Responses["200"] = &huma.Response{
		Description: "Applied (or already applied): fourthparty answers the text SUCCESS, dummy {ok, credited}",
		Content: map[string]*huma.MediaType{
			"text/plain; charset=utf-8": {Schema: &huma.Schema{Type: "string", Enum: []any{"SUCCESS"}}},
			"application/json": {Schema: &huma.Schema{Type: "object", Properties: map[string]*huma.Schema{
				"ok": {Type: "boolean"}, "credited": {Type: "boolean", Description: "false when the order was already paid"},
			}}},
		},
	}
	d.inline(o, 400, "invalid_body, invalid_signature, payment_not_successful, amount_mismatch")
	d.inline(o, 404, "not_found (a provider not enabled on this hub) or order_not_found")
	d.inline(o, 409, "order_not_payable: the order was refunded")
}

// agentDownloadAnswers: the file, whole or a range, or not modified.
func agentDownloadAnswers(o *huma.Operation, d *answerDoc) {
	binary := map[string]*huma.MediaType{"application/octet-stream": {Schema: &huma.Schema{Type: "string", Format: "binary"}}}
	o.Responses["206"] = &huma.Response{Description: "The range asked for (Range)", Content: binary,
		Headers: map[string]*huma.Param{"Content-Range": {Schema: &huma.Schema{Type: "string"}}}}
	o.Responses["304"] = &huma.Response{Description: "Not modified (If-None-Match, If-Modified-Since)"}
	d.addError(o, 404)
	d.inline(o, 416, "range_not_satisfiable")
	d.inline(o, 503, "The download directory cannot be read")
}
