package admin

import "slices"

// Role is an administrator's role. Roles are sets of permissions, not a
// ladder: finance moves money, operator runs hosts and users, viewer reads,
// owner does everything. docs/admin-roles.md explains each.
type Role string

// The roles.
const (
	Owner    Role = "owner"
	Operator Role = "operator"
	Finance  Role = "finance"
	Viewer   Role = "viewer"
)

// Roles lists every role, most powerful first.
var Roles = []Role{Owner, Operator, Finance, Viewer}

// Valid reports whether r is a known role.
func (r Role) Valid() bool { return slices.Contains(Roles, r) }

// Allowed is the set of roles that may call one admin route. Owner is always
// allowed, so a table line names only the others.
type Allowed []Role

// Allow returns the set of owner plus roles.
func Allow(roles ...Role) Allowed { return append(Allowed{Owner}, roles...) }

// Anyone is every role: read-only routes.
var Anyone = Allow(Operator, Finance, Viewer)

// Permits reports whether r may call a route with this set.
func (a Allowed) Permits(r Role) bool { return slices.Contains(a, r) }
