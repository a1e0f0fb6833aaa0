# hostgate first-boot installer for Windows template images
# (docs/provisioning.md). Run it once at every boot as SYSTEM (it exits 0 at
# once when the agent is installed). It waits for the provisioning payload
# in the machine's user data and installs the agent from it, with the agent
# the image carries.
#
#   -Variant simple|autologon  autologon also configures automatic logon
#                              from the payload's autologon section
#   -Source  auto, file:PATH, aws, azure, gcp, aliyun or tencent
#   -DefaultApiEndpoint URL    the hub address used when the payload has none
#   -Agent   the agent executable (default %ProgramFiles%\hostgate\hostgate-agent.exe)
#   -Timeout how long to wait, e.g. 180s (default: 180s simple, 60s autologon)
#
# Exit codes: 0 installed, or already installed; 2 no configuration
# appeared in time; 3 the configuration is not a valid payload (e.g. a
# required field is missing); 4 the agent executable is absent from the
# image; any other value is the installer's own exit code.
param(
    [ValidateSet('simple', 'autologon')][string]$Variant = 'simple',
    [string]$Source = 'auto',
    [string]$DefaultApiEndpoint = '',
    [string]$Agent = (Join-Path $env:ProgramFiles 'hostgate\hostgate-agent.exe'),
    [string]$Timeout = ''
)
if (-not (Test-Path -LiteralPath $Agent -PathType Leaf)) {
    [Console]::Error.WriteLine("hostgate first-boot: the agent executable $Agent is absent from this image")
    exit 4
}
$argv = @('first-boot', '--variant', $Variant, '--source', $Source)
if ($DefaultApiEndpoint) { $argv += @('--default-api-endpoint', $DefaultApiEndpoint) }
if ($Timeout) { $argv += @('--timeout', $Timeout) }
& $Agent @argv
exit $LASTEXITCODE
