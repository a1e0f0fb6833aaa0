package httpapi

import (
	"context"

	"hostgate/internal/apperr"
	"hostgate/internal/upgrades"
	"hostgate/internal/versions"
)

type listVersionsIn struct {
	PageParams
	Channel       string `query:"channel" enum:"stable,beta,canary" doc:"Only this channel"`
	IncludeYanked bool   `query:"include_yanked" doc:"Also list yanked versions"`
}

type publishVersionIn struct {
	Body versions.Publish
}

type versionOut struct{ Body versions.Version }

type versionParam struct {
	Ver string `path:"ver" maxLength:"64" doc:"Dotted version, e.g. 0.4.0"`
}

func (s *Server) adminPublishVersion(ctx context.Context, in *publishVersionIn) (*versionOut, error) {
	v, err := s.cfg.Agents.PublishVersion(ctx, actor(ctx), in.Body)
	if err != nil {
		return nil, err
	}
	return &versionOut{Body: v}, nil
}

func (s *Server) adminYankVersion(ctx context.Context, in *versionParam) (*OK, error) {
	if _, err := s.cfg.Agents.YankVersion(ctx, actor(ctx), in.Ver); err != nil {
		return nil, err
	}
	return ok(), nil
}

type pushUpgradeIn struct {
	HostIDParam
	Body struct {
		Version string `json:"version" required:"false" maxLength:"64" doc:"A published, unyanked version (required)"`
	}
}

type pushUpgradeOut struct{ Body upgrades.Result }

func (s *Server) adminPushUpgrade(ctx context.Context, in *pushUpgradeIn) (*pushUpgradeOut, error) {
	if in.Body.Version == "" {
		return nil, apperr.New(versions.CodeVersionRequired, "version is required")
	}
	res, err := s.cfg.Agents.PushUpgrade(ctx, actor(ctx), in.ID, in.Body.Version)
	if err != nil {
		return nil, err
	}
	return &pushUpgradeOut{Body: res}, nil
}
