package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/installer"
)

// The provisioning payload routes (spec section 2): a host's payload as a
// JSON file, for a machine made from a cloud template to read as user
// data (docs/provisioning.md). Side effects of install-token; free, as
// the lifecycle routes are (charging rule 3).

type provisioningIn struct {
	HostIDParam
	Body *struct {
		Autologon *installer.AutologonRequest `json:"autologon,omitempty" doc:"Ask for an autologon section (for the self-managed-logon first-boot installer); left out, the payload has none"`
	}
}

type provisioningOut struct {
	Disposition  string `header:"Content-Disposition" doc:"attachment; filename=\"provisioning-<host_id>.json\""`
	CacheControl string `header:"Cache-Control"`
	Body         installer.ProvisioningPayload
}

const provisioningDesc = "Returns the host's provisioning payload (spec section 2; docs/provisioning.md) as an " +
	"application/json attachment under 1 KB, to hand a machine made from a template image as its user data. " +
	"Side effects of install-token: a new agent key pair and install token (the previous token and key stop working), " +
	"the secret key kept. Free of charge. The body is optional; with autologon the payload carries an autologon " +
	"section (username default Administrator; password 16 or more characters, generated when left out, never stored). " +
	"400 invalid_body for a bad autologon; 404 not_found for a host that is not the caller's."

func (s *Server) provisioningRoutes() {
	op(s, huma.Operation{OperationID: "apiProvisioningPayload", Method: http.MethodPost,
		Path: "/v1/api/hosts/{id}/provisioning-payload", Description: provisioningDesc,
		Summary: "Download the host's provisioning payload; issues new install credentials like install-token",
		Tags:    []string{"client-api"}, Security: apiKeySecurity}, s.apiProvisioningPayload)
	op(s, huma.Operation{OperationID: "userProvisioningPayload", Method: http.MethodPost,
		Path: "/v1/user/hosts/{id}/provisioning-payload", Description: provisioningDesc,
		Summary: "Download the host's provisioning payload; issues new install credentials like install-token",
		Tags:    []string{"hosts"}, Security: userSecurity}, s.userProvisioningPayload)
}

func (s *Server) apiProvisioningPayload(ctx context.Context, in *provisioningIn) (*provisioningOut, error) {
	return s.provisioningPayload(ctx, clientOf(ctx).UserID, in)
}

func (s *Server) userProvisioningPayload(ctx context.Context, in *provisioningIn) (*provisioningOut, error) {
	return s.provisioningPayload(ctx, userOf(ctx).UserID, in)
}

func (s *Server) provisioningPayload(ctx context.Context, owner string, in *provisioningIn) (*provisioningOut, error) {
	var al *installer.AutologonRequest
	if in.Body != nil {
		al = in.Body.Autologon
	}
	p, err := installer.Provision(ctx, s.cfg.Hosts, owner, in.ID, al)
	if err != nil {
		return nil, err
	}
	return &provisioningOut{Disposition: `attachment; filename="provisioning-` + p.Hub.HostID + `.json"`,
		CacheControl: "no-store", Body: p}, nil
}
