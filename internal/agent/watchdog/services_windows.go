package watchdog

import (
	"errors"
	"fmt"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/svc"
	"golang.org/x/sys/windows/svc/mgr"
)

// NewServices returns the service control manager.
func NewServices() (Services, error) { return scm{}, nil }

type scm struct{}

func (scm) Running(name string) (bool, error) {
	st, err := query(name)
	if err != nil {
		return false, err
	}
	switch st {
	case svc.Running, svc.StartPending, svc.ContinuePending:
		return true, nil
	}
	return false, nil
}

func (scm) Stopped(name string) (bool, error) {
	st, err := query(name)
	return err == nil && st == svc.Stopped, err
}

// query returns the current state of the named service.
func query(name string) (svc.State, error) {
	m, err := mgr.Connect()
	if err != nil {
		return 0, fmt.Errorf("connect to service manager: %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if err != nil {
		return 0, fmt.Errorf("open service %s: %w", name, err)
	}
	defer s.Close()
	st, err := s.Query()
	if err != nil {
		return 0, fmt.Errorf("query service %s: %w", name, err)
	}
	return st.State, nil
}

func (scm) Start(name string) error {
	m, err := mgr.Connect()
	if err != nil {
		return fmt.Errorf("connect to service manager: %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if err != nil {
		return fmt.Errorf("open service %s: %w", name, err)
	}
	defer s.Close()
	err = s.Start()
	// Another watchdog (a second logged-on user) may have won the race.
	if errors.Is(err, windows.ERROR_SERVICE_ALREADY_RUNNING) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("start service %s: %w", name, err)
	}
	return nil
}
