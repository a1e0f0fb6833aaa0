package upgrade

// exeSuffix ends a staged download's name: Windows runs only files that
// end in .exe (the probe runs it).
const exeSuffix = ".exe"

// runningExeLocked: a running executable can be renamed but not replaced
// or deleted, so Restore moves it aside first.
const runningExeLocked = true

// retryAttempts: a rename or delete may fail while another process
// briefly has the file open (a reader, an antivirus scan); ten tries
// span about half a second.
const retryAttempts = 10
