// Package httpapi is the hub's HTTP transport: one route table per entry
// group, authentication by group, the single {error, message} writer, body
// limits, request ids, the paging envelope and the OpenAPI document. It
// translates between HTTP and the domain services and decides nothing else.
package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"hostgate/internal/admin"
	"hostgate/internal/console"
)

// Config is what the transport needs from the hub: the services its
// handlers call, as the narrow interfaces of services.go, and its own
// settings. The hub wiring (internal/hub) builds it.
type Config struct {
	Accounts   Accounts
	Admins     Admins
	APIKeys    APIKeys
	Hosts      Hosts
	Agents     Agents
	Billing    Billing
	Operations Operations
	Terminals  Terminals
	Deliveries Deliveries
	Installs   Installs
	Options    Options
	Log        *slog.Logger
}

// Route is one registered method and path pattern.
type Route struct{ Method, Path string }

// AdminRoute is one line of the admin route→role table.
type AdminRoute struct {
	Route
	Allowed admin.Allowed
	// Action is the audit action a successful write records.
	Action string
}

// Server serves the hub's HTTP API.
type Server struct {
	cfg     Config
	log     *slog.Logger
	mux     *http.ServeMux
	api     huma.API
	handler http.Handler
	console http.Handler

	guards guards

	mu     sync.Mutex
	routes []Route
	policy []AdminRoute

	specOnce sync.Once
	spec     []byte
}

// New builds the server and registers every route.
func New(cfg Config) *Server {
	useOurErrors()
	s := &Server{cfg: cfg, log: cfg.Log, mux: http.NewServeMux()}
	hc := huma.DefaultConfig("hostgate API", cfg.Options.Version)
	hc.OpenAPIPath, hc.DocsPath, hc.SchemasPath = "", "", ""
	hc.CreateHooks = nil
	hc.Formats = map[string]huma.Format{"application/json": strictJSON, "json": strictJSON}
	hc.Info.Description = "Remote host control hub. Every non-2xx answer is {error, message}; see docs/api.md."
	hc.Components.SecuritySchemes = securitySchemes()
	hc.Components.Schemas = huma.NewMapRegistry("#/components/schemas/", schemaName)
	s.api = humago.New(recorder{s}, hc)

	s.healthRoutes()
	s.publicRoutes()
	s.userRoutes()
	s.userHostRoutes()
	s.userKeyRoutes()
	s.clientHostRoutes()
	s.tagRoutes()
	s.clientOpRoutes()
	s.clientOrchestrateRoutes()
	s.userBillingRoutes()
	s.rechargeRoutes()
	s.dummyCheckoutRoutes()
	s.billingModeRoutes()
	s.installerRoutes()
	s.provisioningRoutes()
	s.downloadRoutes()
	s.oneLineRoutes()
	s.agentRoutes()
	s.l1ConfigRoutes()
	s.deliveryRoutes()
	s.jobRoutes()
	s.scheduleRoutes()
	s.webhookSecretRoutes()
	s.terminalRoutes()
	s.adminRoutes()
	s.gatewayRoutes()
	s.raw("GET /v1/openapi.json", s.serveSpec, huma.Operation{
		OperationID: "openapi", Summary: "This OpenAPI 3.1 document", Tags: []string{"meta"},
	})
	s.documentAnswers()
	s.console = console.Handler(cfg.Options.Console)
	s.mux.HandleFunc(consolePattern, s.serveConsole)
	s.mux.HandleFunc("/", s.notFound)
	s.handler = s.outer(tapAnswers(s, chargeHeaders(s.authenticate(noteRoute(s.mux)))))
	return s
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// Routes lists every registered method and path, for the OpenAPI parity test.
func (s *Server) Routes() []Route {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.routes)
}

// AdminPolicy is the admin route→role table, in registration order.
func (s *Server) AdminPolicy() []AdminRoute {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.policy)
}

// OpenAPI returns the document /v1/openapi.json serves.
func (s *Server) OpenAPI() *huma.OpenAPI { return s.api.OpenAPI() }

// recorder is the mux huma registers on; it notes each pattern.
type recorder struct{ s *Server }

func (m recorder) HandleFunc(pattern string, h func(http.ResponseWriter, *http.Request)) {
	m.s.record(pattern)
	m.s.mux.HandleFunc(pattern, m.s.lenientJSON(h))
}

func (m recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.s.mux.ServeHTTP(w, r) }

func (s *Server) record(pattern string) {
	var r Route
	r.Method, r.Path = cut(pattern)
	s.mu.Lock()
	s.routes = append(s.routes, r)
	s.mu.Unlock()
}

// raw registers a plain handler (streams, upgrades, non-JSON bodies) and
// documents it by hand. pattern is "METHOD /path"; each {name} in the path
// the doc does not declare is declared here as a required string path
// parameter, so the document never names a parameter it leaves undefined.
func (s *Server) raw(pattern string, h http.HandlerFunc, doc huma.Operation) {
	doc.Method, doc.Path = cut(pattern)
	if doc.Responses == nil {
		doc.Responses = map[string]*huma.Response{"200": {Description: "OK"}}
	}
	doc.Parameters = withPathParams(doc.Path, doc.Parameters)
	doc.Security = s.guards.declare(doc.Method, doc.Path, doc.Security)
	s.api.OpenAPI().AddOperation(&doc)
	s.record(pattern) // not through recorder: a raw body keeps its Content-Type
	s.mux.HandleFunc(pattern, h)
}

// withPathParams adds to params a required in:path string parameter for
// each {name} of path they lack; a route documents its own to say more.
func withPathParams(path string, params []*huma.Param) []*huma.Param {
	for _, name := range pathParams(path) {
		if !slices.ContainsFunc(params, func(p *huma.Param) bool { return p.In == "path" && p.Name == name }) {
			params = append(params, &huma.Param{Name: name, In: "path", Required: true, Schema: &huma.Schema{Type: "string"}})
		}
	}
	return params
}

// pathParams lists the names of the {name} segments of an OpenAPI path.
func pathParams(path string) []string {
	var names []string
	for seg := range strings.SplitSeq(path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			names = append(names, strings.TrimSuffix(name, "}"))
		}
	}
	return names
}

// schemaName is huma's schema namer, kept to the names OpenAPI allows
// (^[a-zA-Z0-9._-]+$): a generic type over any ("opBody[interface {}]")
// is named …Any, and any other character is dropped.
func schemaName(t reflect.Type, hint string) string {
	name := strings.ReplaceAll(huma.DefaultSchemaNamer(t, hint), "Interface {}", "Any")
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && (r == '.' || r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return -1
	}, name)
}

// cut splits a "METHOD /path" mux pattern.
func cut(pattern string) (method, path string) {
	method, path, _ = strings.Cut(pattern, " ")
	return method, path
}

func (s *Server) serveSpec(w http.ResponseWriter, r *http.Request) {
	s.specOnce.Do(func() { s.spec, _ = json.Marshal(s.api.OpenAPI()) })
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(s.spec)
}

func securitySchemes() map[string]*huma.SecurityScheme {
	return map[string]*huma.SecurityScheme{
		"userToken":   {Type: "http", Scheme: "bearer", BearerFormat: "JWT", Description: "User access token; browsers may send the gw_at cookie instead."},
		"userCookie":  {Type: "apiKey", In: "cookie", Name: userCookie},
		"adminToken":  {Type: "http", Scheme: "bearer", BearerFormat: "JWT", Description: "Admin access token; browsers may send the gw_admin_at cookie instead."},
		"adminCookie": {Type: "apiKey", In: "cookie", Name: adminCookie},
		"apiKey":      {Type: "http", Scheme: "bearer", Description: "API key ak_<key_id>.<secret>"},
	}
}

var (
	userSecurity  = []map[string][]string{{"userToken": {}}, {"userCookie": {}}}
	adminSecurity = []map[string][]string{{"adminToken": {}}, {"adminCookie": {}}}
)

// op registers a huma operation whose handler returns domain errors; they
// become {error, message} answers here and only here.
func op[I, O any](s *Server, o huma.Operation, h func(context.Context, *I) (*O, error)) {
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = maxBody
	}
	if o.BodyReadTimeout == 0 && s.cfg.Options.BodyTimeout > 0 {
		// huma sets the body's read deadline itself (its default is
		// 5 s) and lifts it once the body is read: the configured one.
		o.BodyReadTimeout = s.cfg.Options.BodyTimeout
	}
	o.Security = s.guards.declare(o.Method, o.Path, o.Security)
	huma.Register(s.api, o, func(ctx context.Context, in *I) (*O, error) {
		out, err := h(ctx, in)
		if err != nil {
			p := problemFor(s.log, requestFor(ctx), err)
			if he, ok := errors.AsType[huma.HeadersError](err); ok {
				// Headers an error carries (a cookie to clear) still go out.
				return nil, huma.ErrorWithHeaders(p, he.GetHeaders())
			}
			return nil, p
		}
		return out, nil
	})
}

// requestFor gives problemFor a request carrying ctx, for its log line.
func requestFor(ctx context.Context) *http.Request {
	r, _ := http.NewRequestWithContext(ctx, http.MethodGet, "/", nil)
	return r
}

// adminOp registers an admin route with the roles allowed to call it and,
// for writes, the audit action it records. The line is also the route→role
// table that docs/admin-roles.md mirrors.
func adminOp[I, O any](s *Server, allowed admin.Allowed, action string, o huma.Operation, h func(context.Context, *I) (*O, error)) {
	s.mu.Lock()
	s.policy = append(s.policy, AdminRoute{Route: Route{o.Method, o.Path}, Allowed: allowed, Action: action})
	s.mu.Unlock()
	o.Security = adminSecurity
	o.Extensions = map[string]any{"x-roles": allowed}
	// The role is checked before the body is read, so a caller without the
	// role learns nothing from validation errors; the handler checks again.
	o.Middlewares = append(o.Middlewares, func(hc huma.Context, next func(huma.Context)) {
		if p, ok := adminOf(hc.Context()); !ok || !allowed.Permits(p.Role) {
			_ = huma.WriteErr(s.api, hc, http.StatusForbidden, "your admin role may not do this")
			return
		}
		next(hc)
	})
	op(s, o, func(ctx context.Context, in *I) (*O, error) {
		p, ok := adminOf(ctx)
		if !ok || !allowed.Permits(p.Role) {
			return nil, forbidden()
		}
		return h(ctx, in)
	})
}

func forbidden() error {
	return &Problem{Status: 403, Code: "forbidden", Message: "your admin role may not do this"}
}

// strictJSON is huma's JSON format, except that a request body that is
// not valid UTF-8 is refused (400 invalid_body) instead of having its bad
// bytes silently replaced with U+FFFD, so a name, URL or note is stored
// exactly as sent or not at all, and so is one nested deeper than
// maxJSONDepth, before it is decoded (jsondepth.go).
var strictJSON = huma.Format{
	Marshal: huma.DefaultJSONFormat.Marshal,
	Unmarshal: func(b []byte, v any) error {
		if !utf8.Valid(b) {
			return errors.New("the body is not valid UTF-8")
		}
		if err := checkJSONDepth(b); err != nil {
			return err
		}
		return json.Unmarshal(b, v)
	},
}

// OK is the body of answers that carry no data.
type OK struct {
	Body struct {
		OK bool `json:"ok"`
	}
}

func ok() *OK {
	o := &OK{}
	o.Body.OK = true
	return o
}

// Document is the OpenAPI document a hub of this version serves at
// /v1/openapi.json, indented, keys in a stable order, ending in a newline:
// what `hostgate openapi` prints and docs/openapi.json holds. It opens
// nothing: the routes are registered without any service behind them.
func Document(version string) ([]byte, error) {
	s := New(Config{Options: Options{Version: version}, Log: slog.New(slog.DiscardHandler)})
	b, err := json.MarshalIndent(s.OpenAPI(), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
