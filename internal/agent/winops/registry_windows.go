package winops

import (
	"errors"
	"slices"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"

	"hostgate/internal/agentproto"
)

// Every key is opened in the 64-bit view (KEY_WOW64_64KEY), the one
// regedit shows on 64-bit Windows, whatever the agent's own build.

var hiveKeys = map[string]registry.Key{
	"HKLM": registry.LOCAL_MACHINE,
	"HKCU": registry.CURRENT_USER,
	"HKCR": registry.CLASSES_ROOT,
	"HKU":  registry.USERS,
	"HKCC": registry.CURRENT_CONFIG,
}

// maxListBytes bounds the names a list returns, inside the 4 MiB message.
const maxListBytes = 3 << 20

var (
	advapi32            = windows.NewLazySystemDLL("advapi32.dll")
	procRegDeleteKeyExW = advapi32.NewProc("RegDeleteKeyExW")
	procRegDeleteTreeW  = advapi32.NewProc("RegDeleteTreeW")
)

func registryOp(req regRequest) (any, error) {
	root := hiveKeys[req.hive]
	switch req.action {
	case agentproto.RegistryRead:
		return regRead(root, req)
	case agentproto.RegistryWrite:
		return regWrite(root, req)
	case agentproto.RegistryDeleteValue:
		return regDeleteValue(root, req)
	case agentproto.RegistryList:
		return regList(root, req)
	case agentproto.RegistryCreateKey:
		return regCreateKey(root, req)
	case agentproto.RegistryDeleteKey:
		return regDeleteKey(root, req)
	}
	return nil, agentproto.ArgsError("unknown action %q", req.action)
}

// regError gives a registry error its code.
func regError(what string, err error) error {
	code := agentproto.CodeFailed
	switch {
	case errors.Is(err, windows.ERROR_FILE_NOT_FOUND), errors.Is(err, windows.ERROR_PATH_NOT_FOUND):
		code = CodeNotFound
	case errors.Is(err, windows.ERROR_ACCESS_DENIED):
		code = CodePermissionDenied
	}
	return codeError(code, "%s: %v", what, err)
}

func isNotExist(err error) bool {
	return errors.Is(err, windows.ERROR_FILE_NOT_FOUND) || errors.Is(err, windows.ERROR_PATH_NOT_FOUND)
}

func openKey(root registry.Key, req regRequest, access uint32) (registry.Key, error) {
	k, err := registry.OpenKey(root, req.subkey, access|registry.WOW64_64KEY)
	if err != nil {
		return 0, regError("open "+req.displayPath(), err)
	}
	return k, nil
}

func regRead(root registry.Key, req regRequest) (any, error) {
	k, err := openKey(root, req, registry.QUERY_VALUE)
	if err != nil {
		return nil, err
	}
	defer k.Close()
	data, t, err := readRaw(k, req.name)
	if err != nil {
		return nil, err
	}
	v := decodeValue(req.name, t, data)
	return agentproto.RegistryResult{Value: &v}, nil
}

// readRaw reads a value's type and stored bytes, growing the buffer as
// asked up to maxValueBytes.
func readRaw(k registry.Key, name string) ([]byte, uint32, error) {
	buf := make([]byte, 512)
	for {
		n, t, err := k.GetValue(name, buf)
		switch {
		case err == nil:
			return buf[:n], t, nil
		case !errors.Is(err, registry.ErrShortBuffer):
			return nil, 0, regError("read value "+quoteName(name), err)
		case n > maxValueBytes:
			return nil, 0, codeError(CodeValueTooLarge, "value %s is %d bytes, more than %d", quoteName(name), n, maxValueBytes)
		case n <= len(buf):
			return nil, 0, regError("read value "+quoteName(name), err)
		}
		buf = make([]byte, n)
	}
}

func quoteName(name string) string {
	if name == "" {
		return "(default)"
	}
	return `"` + name + `"`
}

func regWrite(root registry.Key, req regRequest) (any, error) {
	k, _, err := registry.CreateKey(root, req.subkey, registry.SET_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return nil, regError("open "+req.displayPath(), err)
	}
	defer k.Close()
	v := req.value
	switch v.typ {
	case regSz:
		err = k.SetStringValue(req.name, v.str)
	case regExpandSz:
		err = k.SetExpandStringValue(req.name, v.str)
	case regMultiSz:
		err = k.SetStringsValue(req.name, v.strs)
	case regDword:
		err = k.SetDWordValue(req.name, uint32(v.num))
	case regQword:
		err = k.SetQWordValue(req.name, v.num)
	default:
		err = k.SetBinaryValue(req.name, v.bin)
	}
	if err != nil {
		return nil, regError("write value "+quoteName(req.name), err)
	}
	return agentproto.RegistryResult{Changed: true}, nil
}

// regDeleteValue removes a value; a missing key or value is not an error
// but Changed false.
func regDeleteValue(root registry.Key, req regRequest) (any, error) {
	k, err := registry.OpenKey(root, req.subkey, registry.SET_VALUE|registry.WOW64_64KEY)
	if isNotExist(err) {
		return agentproto.RegistryResult{}, nil
	}
	if err != nil {
		return nil, regError("open "+req.displayPath(), err)
	}
	defer k.Close()
	err = k.DeleteValue(req.name)
	if isNotExist(err) {
		return agentproto.RegistryResult{}, nil
	}
	if err != nil {
		return nil, regError("delete value "+quoteName(req.name), err)
	}
	return agentproto.RegistryResult{Changed: true}, nil
}

// regList returns the key's subkeys and its values with their types,
// each sorted case-insensitively, as regedit shows them.
func regList(root registry.Key, req regRequest) (any, error) {
	k, err := openKey(root, req, registry.ENUMERATE_SUB_KEYS|registry.QUERY_VALUE)
	if err != nil {
		return nil, err
	}
	defer k.Close()
	subkeys, err := k.ReadSubKeyNames(-1)
	if err != nil {
		return nil, regError("list subkeys", err)
	}
	names, err := k.ReadValueNames(-1)
	if err != nil {
		return nil, regError("list values", err)
	}
	size := 0
	for _, n := range slices.Concat(subkeys, names) {
		size += len(n) + 32
	}
	if size > maxListBytes {
		return nil, codeError(CodeValueTooLarge, "%s has too many entries to list (%d subkeys, %d values)", req.displayPath(), len(subkeys), len(names))
	}
	values := make([]agentproto.RegistryValue, 0, len(names))
	for _, n := range names {
		if _, t, err := k.GetValue(n, nil); err == nil {
			values = append(values, agentproto.RegistryValue{Name: n, Type: typeName(t)})
		}
	}
	slices.SortFunc(subkeys, compareFold)
	slices.SortFunc(values, func(a, b agentproto.RegistryValue) int { return compareFold(a.Name, b.Name) })
	return agentproto.RegistryResult{Subkeys: subkeys, Values: values}, nil
}

func compareFold(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) }

// regCreateKey creates the key and any missing parents; Changed is false
// when it existed.
func regCreateKey(root registry.Key, req regRequest) (any, error) {
	k, existed, err := registry.CreateKey(root, req.subkey, registry.QUERY_VALUE|registry.WOW64_64KEY)
	if err != nil {
		return nil, regError("create "+req.displayPath(), err)
	}
	k.Close()
	return agentproto.RegistryResult{Changed: !existed}, nil
}

// regDeleteKey removes a key and its values; with subkeys it needs
// recursive. A missing key gives Changed false.
func regDeleteKey(root registry.Key, req regRequest) (any, error) {
	// RegDeleteTree needs these rights, and KEY_SET_VALUE for the values.
	access := uint32(windows.DELETE | registry.ENUMERATE_SUB_KEYS | registry.QUERY_VALUE | registry.SET_VALUE)
	k, err := registry.OpenKey(root, req.subkey, access|registry.WOW64_64KEY)
	if isNotExist(err) {
		return agentproto.RegistryResult{}, nil
	}
	if err != nil {
		return nil, regError("open "+req.displayPath(), err)
	}
	err = clearKey(k, req)
	k.Close()
	if err != nil {
		return nil, err
	}
	err = regDeleteKeyEx(root, req.subkey)
	if isNotExist(err) {
		return agentproto.RegistryResult{}, nil
	}
	if err != nil {
		return nil, regError("delete "+req.displayPath(), err)
	}
	return agentproto.RegistryResult{Changed: true}, nil
}

// clearKey deletes the subkeys of an open key when the request allows it.
func clearKey(k registry.Key, req regRequest) error {
	info, err := k.Stat()
	if err != nil {
		return regError("inspect "+req.displayPath(), err)
	}
	if info.SubKeyCount == 0 {
		return nil
	}
	if !req.recursive {
		return codeError(CodeKeyNotEmpty, "%s has %d subkeys; set recursive to delete them too", req.displayPath(), info.SubKeyCount)
	}
	if err := regDeleteTree(k); err != nil {
		return regError("delete the subkeys of "+req.displayPath(), err)
	}
	return nil
}

// regDeleteKeyEx deletes an empty key in the 64-bit view.
func regDeleteKeyEx(root registry.Key, sub string) error {
	p, err := windows.UTF16PtrFromString(sub)
	if err != nil {
		return err
	}
	r, _, _ := procRegDeleteKeyExW.Call(uintptr(root), uintptr(unsafe.Pointer(p)), registry.WOW64_64KEY, 0)
	if r != 0 {
		return syscall.Errno(r)
	}
	return nil
}

// regDeleteTree deletes every subkey and value of an open key; the key
// itself stays.
func regDeleteTree(k registry.Key) error {
	r, _, _ := procRegDeleteTreeW.Call(uintptr(k), 0)
	if r != 0 {
		return syscall.Errno(r)
	}
	return nil
}
