package l1config

import (
	"context"

	"hostgate/internal/billing"
	"hostgate/internal/hosts"
)

// HostGetter finds an owner's host; *hosts.Service is one.
type HostGetter interface {
	Get(ctx context.Context, owner, id string) (hosts.Host, error)
}

// Charger charges one call of a priced code; *operations.Service is one.
type Charger interface {
	Charge(ctx context.Context, userID, apiKeyID, hostID, code string) error
}

// Charged is the client API's L1 configuration write, charged
// control.update_l1 (billing.RuleUpdateL1).
type Charged struct {
	l1     *Service
	hosts  HostGetter
	charge Charger
}

// NewCharged wires the charged write over l1.
func NewCharged(l1 *Service, h HostGetter, c Charger) *Charged {
	return &Charged{l1: l1, hosts: h, charge: c}
}

// Update validates r and checks the owner's host before charging, so that
// a request that can only fail costs nothing; then it charges the call to
// owner and apiKeyID and writes r as Service.Update does.
func (c *Charged) Update(ctx context.Context, owner, apiKeyID, hostID string, who Who, r Request) (L1ConfigPutResp, error) {
	if err := c.l1.Validate(r); err != nil {
		return L1ConfigPutResp{}, err
	}
	if _, err := c.hosts.Get(ctx, owner, hostID); err != nil {
		return L1ConfigPutResp{}, err
	}
	if err := c.charge.Charge(ctx, owner, apiKeyID, hostID, billing.RuleUpdateL1); err != nil {
		return L1ConfigPutResp{}, err
	}
	return c.l1.Update(ctx, owner, hostID, who, r)
}
