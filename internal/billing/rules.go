package billing

// Rule codes. The first ten are the spec's (section 8); the rest price the
// routes the spec leaves unpriced. Migration 0003 seeds every one with
// the prices docs/billing.md lists; admins change them in the pricing
// table, effective at once. The control.* codes are the pricing rules of
// the rows of agentproto.Controls (Control.Rule), which name them; a test
// checks that the two agree.
const (
	RuleDir           = "control.dir.per_call"
	RuleFileRead      = "control.file_read.per_call"
	RuleFileWrite     = "control.file_write.per_call"
	RuleExecShell     = "control.exec_shell.per_call"
	RuleExecProgram   = "control.exec_program.per_call"
	RuleKillProcess   = "control.kill_process.per_call"
	RuleSystemInfo    = "control.system_info.per_call"
	RuleSystemMetrics = "control.system_metrics.per_call"
	RuleShellSession  = "control.shell_session.per_op"
	RuleUpdateL1      = "control.update_l1"

	RuleUnzip         = "control.zip.per_call"
	RuleDownload      = "control.download.per_call"
	RuleProcessList   = "control.process_list.per_call"
	RuleService       = "control.service.per_call"
	RuleRegistry      = "control.registry.per_call"
	RuleScheduledTask = "control.scheduled_task.per_call"
	RuleOrchestrate   = "control.orchestrate.per_call"
	RuleHostQuery     = "host.query.per_call"
)
