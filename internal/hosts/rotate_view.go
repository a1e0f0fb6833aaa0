package hosts

import "context"

// RotateSecretView rotates the owner's host's secret (RotateSecret) and
// answers the host as it is afterwards with its new credentials, for the
// console's rotate-secret route.
func (s *Service) RotateSecretView(ctx context.Context, owner, id string, by ChangedBy) (Host, Credentials, error) {
	c, err := s.RotateSecret(ctx, owner, id, by)
	if err != nil {
		return Host{}, Credentials{}, err
	}
	h, err := s.Get(ctx, owner, id)
	if err != nil {
		return Host{}, Credentials{}, err
	}
	return h, c, nil
}
