package admin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"hostgate/internal/apperr"
	"hostgate/internal/audit"
	"hostgate/internal/paging"
	"hostgate/internal/passwords"
)

// Managing admins (the console's admins page, owners only): every change
// is audited in its own unit of work, granting owner needs a step-up token,
// and the rules of ChangeAdmin hold (one enabled owner always remains;
// disabling or a role change ends the admin's sessions).

// NewAdmin is what a new admin is made of.
type NewAdmin struct {
	Username string
	Password string
	Role     Role
}

// Get returns an admin; a missing id is not_found.
func (s *Service) Get(ctx context.Context, id string) (Admin, error) {
	a, err := s.store.AdminByID(ctx, id)
	if errors.Is(err, ErrAdminNotFound) {
		return Admin{}, apperr.NotFound("admin")
	}
	return a, err
}

// List returns a page of admins, by username.
func (s *Service) List(ctx context.Context, f Filter, p paging.Page) (paging.Result[Admin], error) {
	if f.Role != "" && !f.Role.Valid() {
		return paging.Result[Admin]{}, apperr.New(apperr.CodeInvalidQuery, fmt.Sprintf("role must be one of %v", Roles))
	}
	if f.Status != "" && f.Status != StatusActive && f.Status != StatusDisabled {
		return paging.Result[Admin]{}, apperr.New(apperr.CodeInvalidQuery, "status must be active or disabled")
	}
	f.Query = strings.ToLower(strings.TrimSpace(f.Query))
	items, total, err := s.store.ListAdmins(ctx, f, p)
	return paging.NewResult(items, total, p), err
}

// Add creates an admin on p's behalf, audited as admin.create. Granting
// owner takes p's step-up token.
func (s *Service) Add(ctx context.Context, p Principal, actor audit.Actor, stepUp string, n NewAdmin) (Admin, error) {
	username, err := NormalizeUsername(n.Username)
	if err != nil {
		return Admin{}, err
	}
	if err := checkRole(n.Role); err != nil {
		return Admin{}, err
	}
	if err := passwords.Check(n.Password, username); err != nil {
		return Admin{}, err
	}
	if n.Role == Owner {
		if err := s.ConsumeStepUp(ctx, p, stepUp); err != nil {
			return Admin{}, err
		}
	}
	hash, err := s.hasher.Hash(ctx, n.Password)
	if err != nil {
		return Admin{}, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	a := Admin{ID: uuid.NewString(), Username: username, Role: n.Role, Status: StatusActive, CreatedAt: now}
	rec := actor.Entry(audit.ActionAdminCreate, "admin", a.ID).WithDetail(map[string]string{"username": a.Username, "role": string(a.Role)})
	if err := InsertAdmin(ctx, s.store, a, hash, now, rec); err != nil {
		if errors.Is(err, ErrUsernameTaken) {
			return Admin{}, usernameTaken()
		}
		return Admin{}, err
	}
	return a, nil
}

// SetRole gives the admin id role on p's behalf, audited as
// admin.role_change. Granting owner takes p's step-up token; the last
// enabled owner keeps its role (last_owner); a change ends all the admin's
// sessions.
func (s *Service) SetRole(ctx context.Context, p Principal, actor audit.Actor, stepUp, id string, role Role) (Admin, error) {
	if err := checkRole(role); err != nil {
		return Admin{}, err
	}
	if role == Owner {
		// A missing admin is not_found before a step-up token is spent.
		if _, err := s.Get(ctx, id); err != nil {
			return Admin{}, err
		}
		if err := s.ConsumeStepUp(ctx, p, stepUp); err != nil {
			return Admin{}, err
		}
	}
	return s.changeRole(ctx, actor, id, role)
}

func (s *Service) changeRole(ctx context.Context, actor audit.Actor, id string, role Role) (Admin, error) {
	if err := checkRole(role); err != nil {
		return Admin{}, err
	}
	rec := actor.Entry(audit.ActionAdminRoleChange, "admin", id).WithDetail(map[string]string{"role": string(role)})
	return s.change(ctx, id, Change{Role: role}, rec)
}

// SetStatusByID enables or disables the admin id on actor's behalf,
// audited as admin.enable or admin.disable. The last enabled owner cannot
// be disabled (last_owner); disabling ends all the admin's sessions.
func (s *Service) SetStatusByID(ctx context.Context, actor audit.Actor, id, status string) (Admin, error) {
	action := audit.ActionAdminDisable
	switch status {
	case StatusActive:
		action = audit.ActionAdminEnable
	case StatusDisabled:
	default:
		return Admin{}, fmt.Errorf("admin: unknown status %q", status)
	}
	return s.change(ctx, id, Change{Status: status}, actor.Entry(action, "admin", id))
}

// change applies c (ChangeAdmin) and forgets the sessions it ended.
func (s *Service) change(ctx context.Context, id string, c Change, rec audit.Entry) (Admin, error) {
	a, ended, err := ChangeAdmin(ctx, s.store, id, c, s.now().UTC(), rec)
	switch {
	case errors.Is(err, ErrAdminNotFound):
		return Admin{}, apperr.NotFound("admin")
	case errors.Is(err, ErrLastOwner):
		return Admin{}, apperr.New(CodeLastOwner, "this is the last enabled owner: make another admin owner first")
	case err != nil:
		return Admin{}, err
	}
	s.sessions.Forget(ctx, ended...)
	return a, nil
}

func checkRole(r Role) error {
	if !r.Valid() {
		return apperr.New(CodeInvalidRole, fmt.Sprintf("role must be one of %v", Roles))
	}
	return nil
}

func usernameTaken() error {
	return apperr.New(CodeUsernameTaken, "an admin with this username already exists")
}
