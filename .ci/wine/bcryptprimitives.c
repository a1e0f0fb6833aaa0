/*
 * Minimal bcryptprimitives.dll for running Go Windows binaries under Wine 8.
 *
 * Go 1.22+ gets its random bytes from ProcessPrng in bcryptprimitives.dll,
 * which Wine 8 does not provide, so every Go .exe dies at start-up. This DLL
 * exports only ProcessPrng and serves it from SystemFunction036
 * (RtlGenRandom) in advapi32. Test use only; built by .ci/wine/setup.
 */
#include <windows.h>

/* RtlGenRandom; declared here rather than through <ntsecapi.h>, which
 * exposes it only under a macro name. */
__declspec(dllimport) BOOLEAN WINAPI SystemFunction036(PVOID buf, ULONG len);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	/* SIZE_T may exceed ULONG: fill in chunks. Like the real ProcessPrng,
	 * report success always; a failure here has no useful recovery. */
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			break;
		data += n;
		len -= n;
	}
	return TRUE;
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
	(void)inst;
	(void)reason;
	(void)reserved;
	return TRUE;
}
