package winops

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"hostgate/internal/agentproto"
)

// The service code calls the service manager's API directly rather than
// through svc/mgr: mgr.Connect and mgr.OpenService ask for all access,
// which only administrators get, and mgr's Config queries configuration
// levels Wine does not implement. Each action here asks only for the
// rights it uses.

// Access rights per action.
const (
	accessQuery   = windows.SERVICE_QUERY_CONFIG | windows.SERVICE_QUERY_STATUS
	accessControl = accessQuery | windows.SERVICE_START | windows.SERVICE_STOP | windows.SERVICE_PAUSE_CONTINUE
	accessConfig  = accessQuery | windows.SERVICE_CHANGE_CONFIG
	accessDelete  = accessQuery | windows.DELETE
)

// defaultSettler polls a service from 50 ms apart, slowing to 1 s.
var defaultSettler = settler{first: 50 * time.Millisecond, most: time.Second}

func serviceOp(ctx context.Context, req serviceRequest) (any, error) {
	if req.data.Action == agentproto.ServiceList {
		services, err := listServices()
		if err != nil {
			return nil, err
		}
		return agentproto.ServiceResult{Services: services}, nil
	}
	if req.data.Action == agentproto.ServiceCreate {
		return createService(req)
	}
	m, err := openSCM(windows.SC_MANAGER_CONNECT)
	if err != nil {
		return nil, err
	}
	defer windows.CloseServiceHandle(m)
	switch req.data.Action {
	case agentproto.ServiceQuery:
		return withService(m, req.name, accessQuery, func(h windows.Handle) error { return nil })
	case agentproto.ServiceStart, agentproto.ServiceStop, agentproto.ServiceRestart:
		return withService(m, req.name, accessControl, func(h windows.Handle) error {
			return controlService(ctx, h, req)
		})
	case agentproto.ServiceSetStartType:
		return withService(m, req.name, accessConfig, func(h windows.Handle) error {
			return setStartType(h, req.data.StartType)
		})
	case agentproto.ServiceDelete:
		return deleteService(m, req.name)
	}
	return nil, agentproto.ArgsError("unknown action %q", req.data.Action)
}

// withService opens the service, runs do, and answers with the service's
// status afterwards.
func withService(m windows.Handle, name string, access uint32, do func(windows.Handle) error) (any, error) {
	h, err := openService(m, name, access)
	if err != nil {
		return nil, err
	}
	defer windows.CloseServiceHandle(h)
	if err := do(h); err != nil {
		return nil, err
	}
	st, err := serviceStatus(h, name)
	if err != nil {
		return nil, err
	}
	return agentproto.ServiceResult{Service: &st}, nil
}

// controlService starts, stops or restarts the service and waits, up to
// the request's timeout (per phase for restart), for it to settle.
func controlService(ctx context.Context, h windows.Handle, req serviceRequest) error {
	c := handleController{h}
	var err error
	switch req.data.Action {
	case agentproto.ServiceStart:
		_, err = defaultSettler.within(ctx, req.timeout, c, stateRunning)
	case agentproto.ServiceStop:
		_, err = defaultSettler.within(ctx, req.timeout, c, stateStopped)
	default:
		_, err = defaultSettler.restart(ctx, req.timeout, c)
	}
	var e *agentproto.Error
	if errors.As(err, &e) && e.Code == CodeServiceTimeout {
		e.Message = fmt.Sprintf("service %s: %s (timeout %s)", req.name, e.Message, req.timeout)
	}
	return err
}

// setStartType changes the start type; the delayed flag is written for
// automatic start only, as Windows ignores it otherwise.
func setStartType(h windows.Handle, name string) error {
	start, delayed := startTypeValue(name)
	err := windows.ChangeServiceConfig(h, windows.SERVICE_NO_CHANGE, start, windows.SERVICE_NO_CHANGE,
		nil, nil, nil, nil, nil, nil, nil)
	if err != nil {
		return scmError("change start type", err)
	}
	if start != startAuto {
		return nil
	}
	err = setDelayedAutoStart(h, delayed)
	// A service manager without the setting (Wine) cannot hold delayed
	// start, but plain automatic start is what it already has.
	if err != nil && (delayed || !errors.Is(err, windows.ERROR_INVALID_LEVEL)) {
		return scmError("change delayed automatic start", err)
	}
	return nil
}

func setDelayedAutoStart(h windows.Handle, delayed bool) error {
	var info windows.SERVICE_DELAYED_AUTO_START_INFO
	if delayed {
		info.IsDelayedAutoStartUp = 1
	}
	return windows.ChangeServiceConfig2(h, windows.SERVICE_CONFIG_DELAYED_AUTO_START_INFO, (*byte)(unsafe.Pointer(&info)))
}

func setDescription(h windows.Handle, text string) error {
	p, err := windows.UTF16PtrFromString(text)
	if err != nil {
		return err
	}
	d := windows.SERVICE_DESCRIPTION{Description: p}
	return windows.ChangeServiceConfig2(h, windows.SERVICE_CONFIG_DESCRIPTION, (*byte)(unsafe.Pointer(&d)))
}

// createService registers a service running as LocalSystem in its own
// process, then answers with its status.
func createService(req serviceRequest) (any, error) {
	m, err := openSCM(windows.SC_MANAGER_CONNECT | windows.SC_MANAGER_CREATE_SERVICE)
	if err != nil {
		return nil, err
	}
	defer windows.CloseServiceHandle(m)
	d := req.data
	start, delayed := startTypeValue(d.StartType)
	name, _ := windows.UTF16PtrFromString(req.name)
	line, err := windows.UTF16PtrFromString(serviceCommandLine(d.BinaryPath, d.Args))
	if err != nil {
		return nil, agentproto.ArgsError("binary_path and args: %v", err)
	}
	var display *uint16
	if d.DisplayName != "" {
		display, _ = windows.UTF16PtrFromString(d.DisplayName)
	}
	h, err := windows.CreateService(m, name, display, accessDelete|windows.SERVICE_CHANGE_CONFIG,
		windows.SERVICE_WIN32_OWN_PROCESS, start, windows.SERVICE_ERROR_NORMAL, line, nil, nil, nil, nil, nil)
	if err != nil {
		return nil, scmError("create", err)
	}
	defer windows.CloseServiceHandle(h)
	if err := finishCreate(h, d.Description, delayed); err != nil {
		// Do not leave a half-configured service behind.
		_ = windows.DeleteService(h)
		return nil, err
	}
	st, err := serviceStatus(h, req.name)
	if err != nil {
		return nil, err
	}
	return agentproto.ServiceResult{Service: &st}, nil
}

func finishCreate(h windows.Handle, description string, delayed bool) error {
	if description != "" {
		if err := setDescription(h, description); err != nil {
			return scmError("set description", err)
		}
	}
	if delayed {
		if err := setDelayedAutoStart(h, true); err != nil {
			return scmError("set delayed automatic start", err)
		}
	}
	return nil
}

// deleteService marks the service for deletion and answers with its
// status before: a running service goes once it stops.
func deleteService(m windows.Handle, name string) (any, error) {
	h, err := openService(m, name, accessDelete)
	if err != nil {
		return nil, err
	}
	defer windows.CloseServiceHandle(h)
	st, err := serviceStatus(h, name)
	if err != nil {
		return nil, err
	}
	if err := windows.DeleteService(h); err != nil {
		return nil, scmError("delete", err)
	}
	return agentproto.ServiceResult{Service: &st}, nil
}
