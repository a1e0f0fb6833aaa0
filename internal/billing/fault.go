package billing

import "os"

// CrashAtEnv names a test-only fault injection, off unless set: when the
// hub's environment sets it to one of the points below, the process kills
// itself with SIGKILL on reaching that point inside a payment's unit of
// work, before anything of it is committed, as a crash or an OOM kill
// there would. The reliability battery (T19, e2e TestPaymentCrashAtomic)
// restarts the hub and has the provider retry; the order must then be
// paid and credited exactly once. Never set it in production.
const CrashAtEnv = "HOSTGATE_TEST_PAYMENT_CRASH_AT"

// The points of PayRecharge's unit of work CrashAtEnv can name.
const (
	CrashAfterOrderUpdate   = "after_order_update"   // the order marked paid
	CrashBeforeLedgerInsert = "before_ledger_insert" // the balance credited, no event yet
	CrashBeforeCommit       = "before_commit"        // everything written, not committed
)

// crashAt is read once: the variable is set when the process starts.
var crashAt = os.Getenv(CrashAtEnv)

// checkpoint kills the process at point when CrashAtEnv names it.
func checkpoint(point string) {
	if crashAt == "" || crashAt != point {
		return
	}
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		_ = p.Kill() // SIGKILL: no deferred function, no rollback, no flush
		select {}    // the signal is on its way
	}
}
