package hosts

import (
	"context"

	"hostgate/internal/apperr"
)

// AdminCommandable returns id's host id when an admin may act on the host
// (a terminal): it exists and is not banned; not_found or host_banned
// otherwise.
func (s *Service) AdminCommandable(ctx context.Context, id string) (string, error) {
	h, err := s.AdminGet(ctx, id)
	if err != nil {
		return "", err
	}
	if h.Status == StatusBanned {
		return "", apperr.New(CodeHostBanned, "this host is banned")
	}
	return h.ID, nil
}

// AdminExists returns nil when id is a host (banned or not) an admin may
// still reach: not_found otherwise.
func (s *Service) AdminExists(ctx context.Context, id string) error {
	_, err := s.AdminGet(ctx, id)
	return err
}
