package httpapi

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"hostgate/internal/installer"
)

type installerIn struct {
	HostIDParam
	Format string `query:"format" doc:"ps1, cmd or exe (the default): the agent executable with the provisioning payload appended"`
}

type userInstallerIn struct {
	HostIDParam
}

type installerOut struct {
	ContentType  string `header:"Content-Type"`
	Disposition  string `header:"Content-Disposition"`
	CacheControl string `header:"Cache-Control"`
	Body         []byte
}

func (s *Server) installerRoutes() {
	op(s, huma.Operation{OperationID: "userInstaller", Method: http.MethodGet, Path: "/v1/user/hosts/{id}/installer",
		Summary: "Download a PowerShell installer; issues new install credentials like install-token",
		Tags:    []string{"hosts"}, Security: userSecurity}, s.userInstaller)
	op(s, huma.Operation{OperationID: "apiInstaller", Method: http.MethodGet, Path: "/v1/api/hosts/{id}/installer",
		Summary: "Download an installer (format ps1 or cmd); issues new install credentials like install-token",
		Tags:    []string{"client-api"}, Security: apiKeySecurity}, s.apiInstaller)
}

func (s *Server) userInstaller(ctx context.Context, in *userInstallerIn) (*installerOut, error) {
	return s.installer(ctx, userOf(ctx).UserID, in.ID, installer.PS1)
}

func (s *Server) apiInstaller(ctx context.Context, in *installerIn) (*installerOut, error) {
	return s.installer(ctx, clientOf(ctx).UserID, in.ID, in.Format)
}

// installer: the installer service checks first and issues after, so a
// refused request leaves the host's current credentials working.
func (s *Server) installer(ctx context.Context, owner, id, format string) (*installerOut, error) {
	sc, err := s.cfg.Installs.Installer(ctx, owner, id, format)
	if err != nil {
		return nil, err
	}
	return &installerOut{ContentType: sc.ContentType, Disposition: `attachment; filename="` + sc.FileName + `"`,
		CacheControl: "no-store", Body: sc.Body}, nil
}
