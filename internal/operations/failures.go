package operations

import (
	"slices"

	"hostgate/internal/agentproto"
	"hostgate/internal/apperr"
)

// FailureCodes are the codes of operations the agent tried and could not
// carry out (HTTP 422): the agent's own codes, passed through, except its
// "not_found", which becomes target_not_found so that it is never taken
// for the hub's 404 not_found (a host that is not the caller's).
var FailureCodes = []string{
	CodeOperationFailed, CodeTargetNotFound, agentproto.CodeUnsupportedOS,
	"permission_denied", "file_too_large", "not_a_directory", "is_a_directory",
	"unsafe_zip_entry", "download_failed", "checksum_mismatch",
	"service_timeout", "key_not_empty", "task_failed", "already_exists", "value_too_large",
	"config_invalid", "manifest_invalid", "already_running",
}

// CodeGameDirNotFound: orchestration found no game directory; unlike the
// failures above it is a 404 (issue 18).
const CodeGameDirNotFound = "game_dir_not_found"

// Codes the hub itself gives an agent failure.
const (
	// CodeOperationFailed: the agent failed with a code the hub does not
	// know (a newer agent); the message says what happened.
	CodeOperationFailed = "operation_failed"
	// CodeTargetNotFound: the file, process, service, key or task the
	// operation names does not exist on the host.
	CodeTargetNotFound = "target_not_found"
	// CodeAgentTooOld: the agent does not know the operation.
	CodeAgentTooOld = "agent_unsupported_operation"
	// CodeUnsupportedControl (501): the agent does not carry out the
	// controls value a raw control sent it; the message names the value.
	CodeUnsupportedControl = agentproto.CodeUnsupportedControl
	// CodeNotImplemented (501): UPLOAD_FILE, like files/upload.
	CodeNotImplemented = agentproto.CodeNotImplemented
)

// agentFailure turns the agent's error into the client's.
func agentFailure(e *agentproto.Error) error {
	if e == nil {
		return apperr.New(CodeOperationFailed, "the agent reported a failure without a reason")
	}
	switch e.Code {
	case "not_found":
		return apperr.New(CodeTargetNotFound, e.Message)
	case agentproto.CodeBadArgs:
		return apperr.New(apperr.CodeInvalidBody, e.Message)
	case agentproto.CodeUnknownOp:
		return apperr.New(CodeAgentTooOld, "the host's agent is too old for this operation; upgrade it")
	case CodeUnsupportedControl, CodeNotImplemented:
		return apperr.New(e.Code, e.Message)
	case CodeGameDirNotFound:
		return apperr.New(CodeGameDirNotFound, e.Message)
	case agentproto.CodeDeadlinePassed:
		return apperr.New("agent_timeout", "the command reached the agent after its deadline")
	}
	if slices.Contains(FailureCodes, e.Code) {
		return apperr.New(e.Code, e.Message)
	}
	return apperr.New(CodeOperationFailed, e.Code+": "+e.Message)
}
