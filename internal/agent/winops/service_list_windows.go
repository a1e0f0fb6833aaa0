package winops

import (
	"errors"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"

	"hostgate/internal/agentproto"
)

// servicesKey is where the service manager keeps each service's
// configuration, including its start type.
const servicesKey = `SYSTEM\CurrentControlSet\Services`

// listServices lists the Win32 services (drivers left out) with one
// EnumServicesStatusEx call for names, display names, states and PIDs.
// Start types come from the service manager's registry keys, which is a
// local read per service instead of two service manager calls; a service
// whose key cannot be read falls back to QueryServiceConfig.
func listServices() ([]agentproto.ServiceStatus, error) {
	m, err := openSCM(windows.SC_MANAGER_CONNECT | windows.SC_MANAGER_ENUMERATE_SERVICE)
	if err != nil {
		return nil, err
	}
	defer windows.CloseServiceHandle(m)
	list, err := enumServices(m)
	if err != nil {
		return nil, scmError("list services", err)
	}
	root, rootErr := registry.OpenKey(registry.LOCAL_MACHINE, servicesKey, registry.ENUMERATE_SUB_KEYS|registry.WOW64_64KEY)
	if rootErr == nil {
		defer root.Close()
	}
	for i := range list {
		var t uint32
		var delayed, ok bool
		if rootErr == nil {
			t, delayed, ok = registryStartType(root, list[i].Name)
		}
		if !ok {
			t, delayed, ok = scmStartType(m, list[i].Name)
		}
		if ok {
			list[i].StartType = startTypeName(t, delayed)
		}
	}
	slices.SortFunc(list, func(a, b agentproto.ServiceStatus) int {
		return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name))
	})
	return list, nil
}

// enumServices calls EnumServicesStatusEx with a buffer grown to what it
// asks for, with room for services created meanwhile.
func enumServices(m windows.Handle) ([]agentproto.ServiceStatus, error) {
	var need, count uint32
	words := make([]uint64, 8192) // 64 KiB, enough for ~300 services
	for {
		buf := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
		err := windows.EnumServicesStatusEx(m, windows.SC_ENUM_PROCESS_INFO, windows.SERVICE_WIN32,
			windows.SERVICE_STATE_ALL, &buf[0], uint32(len(buf)), &need, &count, nil, nil)
		if err == nil {
			break
		}
		if !errors.Is(err, windows.ERROR_MORE_DATA) || need <= uint32(len(buf)) {
			return nil, err
		}
		words = make([]uint64, (need+16384+7)/8)
	}
	if count == 0 {
		return []agentproto.ServiceStatus{}, nil
	}
	entries := unsafe.Slice((*windows.ENUM_SERVICE_STATUS_PROCESS)(unsafe.Pointer(&words[0])), int(count))
	out := make([]agentproto.ServiceStatus, 0, count)
	for _, e := range entries {
		out = append(out, agentproto.ServiceStatus{
			Name:        windows.UTF16PtrToString(e.ServiceName),
			DisplayName: windows.UTF16PtrToString(e.DisplayName),
			State:       stateName(e.ServiceStatusProcess.CurrentState),
			PID:         int(e.ServiceStatusProcess.ProcessId),
		})
	}
	return out, nil
}

// registryStartType reads Start and DelayedAutostart of a service's key.
func registryStartType(root registry.Key, name string) (uint32, bool, bool) {
	k, err := registry.OpenKey(root, name, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return 0, false, false
	}
	defer k.Close()
	start, _, err := k.GetIntegerValue("Start")
	if err != nil {
		return 0, false, false
	}
	delayed, _, _ := k.GetIntegerValue("DelayedAutostart")
	return uint32(start), delayed != 0, true
}

// scmStartType asks the service manager for one service's start type.
func scmStartType(m windows.Handle, name string) (uint32, bool, bool) {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return 0, false, false
	}
	h, err := windows.OpenService(m, p, windows.SERVICE_QUERY_CONFIG)
	if err != nil {
		return 0, false, false
	}
	defer windows.CloseServiceHandle(h)
	cfg, err := queryConfig(h)
	if err != nil {
		return 0, false, false
	}
	return cfg.StartType, cfg.StartType == startAuto && delayedAutoStart(h), true
}
