package winops

import (
	"errors"
	"unsafe"

	"golang.org/x/sys/windows"

	"hostgate/internal/agentproto"
)

func openSCM(access uint32) (windows.Handle, error) {
	h, err := windows.OpenSCManager(nil, nil, access)
	if err != nil {
		return 0, scmError("connect to the service manager", err)
	}
	return h, nil
}

func openService(m windows.Handle, name string, access uint32) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, agentproto.ArgsError("service name: %v", err)
	}
	h, err := windows.OpenService(m, p, access)
	if err != nil {
		return 0, scmError("open service "+name, err)
	}
	return h, nil
}

// scmError gives a service manager error its code.
func scmError(what string, err error) error {
	var code string
	switch {
	case errors.Is(err, windows.ERROR_SERVICE_DOES_NOT_EXIST):
		code = CodeNotFound
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		code = CodePermissionDenied
	case errors.Is(err, windows.ERROR_SERVICE_EXISTS), errors.Is(err, windows.ERROR_DUPLICATE_SERVICE_NAME):
		code = CodeAlreadyExists
	case errors.Is(err, windows.ERROR_INVALID_NAME):
		code = agentproto.CodeBadArgs
	default:
		code = agentproto.CodeFailed
	}
	return codeError(code, "%s: %v", what, err)
}

// serviceStatus reads the configuration and state of an open service
// (the handle needs SERVICE_QUERY_CONFIG and SERVICE_QUERY_STATUS).
func serviceStatus(h windows.Handle, name string) (agentproto.ServiceStatus, error) {
	cfg, err := queryConfig(h)
	if err != nil {
		return agentproto.ServiceStatus{}, scmError("query configuration", err)
	}
	st, err := handleController{h}.query()
	if err != nil {
		return agentproto.ServiceStatus{}, err
	}
	return agentproto.ServiceStatus{
		Name:        name,
		DisplayName: windows.UTF16PtrToString(cfg.DisplayName),
		State:       stateName(st.State),
		StartType:   startTypeName(cfg.StartType, cfg.StartType == startAuto && delayedAutoStart(h)),
		PID:         int(st.PID),
		BinaryPath:  windows.UTF16PtrToString(cfg.BinaryPathName),
	}, nil
}

// configBuf keeps a QUERY_SERVICE_CONFIG and the strings it points into
// alive together.
type configBuf struct {
	*windows.QUERY_SERVICE_CONFIG
	buf []byte
}

// queryConfig calls QueryServiceConfig with a buffer that grows as the
// service manager asks.
func queryConfig(h windows.Handle) (configBuf, error) {
	n := uint32(1024)
	for {
		// A []uint64 keeps the structure's pointers aligned.
		words := make([]uint64, (n+7)/8)
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
		p := (*windows.QUERY_SERVICE_CONFIG)(unsafe.Pointer(&buf[0]))
		err := windows.QueryServiceConfig(h, p, uint32(len(buf)), &n)
		if err == nil {
			return configBuf{p, buf}, nil
		}
		if !errors.Is(err, windows.ERROR_INSUFFICIENT_BUFFER) || n <= uint32(len(buf)) {
			return configBuf{}, err
		}
	}
}

// delayedAutoStart reads the delayed flag; a service manager without the
// setting (Wine) has no delayed services.
func delayedAutoStart(h windows.Handle) bool {
	var info windows.SERVICE_DELAYED_AUTO_START_INFO
	var n uint32
	err := windows.QueryServiceConfig2(h, windows.SERVICE_CONFIG_DELAYED_AUTO_START_INFO,
		(*byte)(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)), &n)
	return err == nil && info.IsDelayedAutoStartUp != 0
}

// handleController is the svcController of an open service handle.
type handleController struct{ h windows.Handle }

func (c handleController) query() (svcState, error) {
	var t windows.SERVICE_STATUS_PROCESS
	var n uint32
	err := windows.QueryServiceStatusEx(c.h, windows.SC_STATUS_PROCESS_INFO, (*byte)(unsafe.Pointer(&t)), uint32(unsafe.Sizeof(t)), &n)
	if err != nil {
		return svcState{}, scmError("query status", err)
	}
	return svcState{State: t.CurrentState, PID: t.ProcessId, ExitCode: t.Win32ExitCode, Specific: t.ServiceSpecificExitCode}, nil
}

func (c handleController) start() error {
	err := windows.StartService(c.h, 0, nil)
	switch {
	case err == nil, errors.Is(err, windows.ERROR_SERVICE_ALREADY_RUNNING):
		return nil
	case errors.Is(err, windows.ERROR_SERVICE_DISABLED):
		return codeError(agentproto.CodeFailed, "start: the service is disabled")
	}
	return scmError("start", err)
}

func (c handleController) control(code uint32) error {
	var st windows.SERVICE_STATUS
	err := windows.ControlService(c.h, code, &st)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, windows.ERROR_SERVICE_CANNOT_ACCEPT_CTRL):
		return errControlBusy
	case errors.Is(err, windows.ERROR_SERVICE_NOT_ACTIVE) && code == controlStop:
		return nil
	case errors.Is(err, windows.ERROR_DEPENDENT_SERVICES_RUNNING):
		return codeError(agentproto.CodeFailed, "stop: other running services depend on this one; stop them first")
	case errors.Is(err, windows.ERROR_INVALID_SERVICE_CONTROL):
		return codeError(agentproto.CodeFailed, "the service does not accept control %d", code)
	}
	return scmError("control", err)
}
