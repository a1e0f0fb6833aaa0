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
	m, err := mgr.Connect()
	if err != nil {
		return false, fmt.Errorf("connect to service manager: %w", err)
	}
	defer m.Disconnect()
	s, err := m.OpenService(name)
	if err != nil {
		return false, fmt.Errorf("open service %s: %w", name, err)
	}
	defer s.Close()
	st, err := s.Query()
	if err != nil {
		return false, fmt.Errorf("query service %s: %w", name, err)
	}
	switch st.State {
	case svc.Running, svc.StartPending, svc.ContinuePending:
		return true, nil
	}
	return false, nil
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
