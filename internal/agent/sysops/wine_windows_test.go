package sysops

import "golang.org/x/sys/windows"

// underWine reports whether the test runs under Wine, which implements
// some of the Windows calls gopsutil makes only in part.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
