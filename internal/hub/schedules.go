package hub

import (
	"hostgate/internal/deliveries"
	"hostgate/internal/schedules"
)

// webhooksAPI is what httpapi.Deliveries asks of the hub: a host's
// webhook history, the user-level history, the user's webhook secret and
// the schedules.
type webhooksAPI struct {
	*deliveries.Service
	*deliveries.UserService
	*deliveries.Secrets
	*scheduleService
}

// scheduleService names the embedded schedules.Service apart from
// deliveries.Service.
type scheduleService = schedules.Service
