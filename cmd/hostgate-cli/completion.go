package main

import (
	"fmt"
	"io"
)

// completion prints a shell's completion script (docs/cli.md, Shell
// completion): commands, subcommands and flags.
func (a *app) completion(args []string) error {
	const usage = "hostgate-cli completion bash|zsh|fish"
	if len(args) != 1 {
		return usageErr("completion: name one shell", usage)
	}
	script, ok := map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}[args[0]]
	if !ok {
		return usageErr(fmt.Sprintf("completion: unknown shell %q", args[0]), usage)
	}
	_, err := io.WriteString(a.stdout, script)
	return err
}

const bashCompletion = `# hostgate-cli completion for bash: source <(hostgate-cli completion bash)
_hostgate_cli() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmd= sub= i words=
    local jobflags="--tag --host --filter --name --offline --expires --concurrency --wave-size --wave-pause --stop-if-failed --notify-url --raw --timeout-s"
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
            --url|--api-key|--config|--timeout|-url|-api-key|-config|-timeout)
                [[ -z $cmd ]] && ((i++)) ;;
            -*) ;;
            *)  if [[ -z $cmd ]]; then cmd=${COMP_WORDS[i]}
                elif [[ -z $sub ]]; then sub=${COMP_WORDS[i]}; fi ;;
        esac
    done
    case $cmd in
        "")         words="hosts shell read term deliveries jobs tags filters schedules webhook-secret completion version help --url --api-key --config --json --timeout" ;;
        hosts)      if [[ -z $sub ]]; then words="list create show delete credentials provisioning-payload installer"
                    else case $sub in
                        list) words="--tag --filter --q --status --online --os --agent-version" ;;
                        create) words="--listen-port --credentials" ;;
                        delete) words="--yes" ;;
                        credentials) words="--rotate" ;;
                        provisioning-payload) words="--autologon-user --autologon-password --autologon-generate -o" ;;
                        installer) words="--format -o" ;;
                    esac; fi ;;
        shell)      words="--timeout-s --" ;;
        deliveries) words="--limit --follow --interval" ;;
        jobs)       if [[ -z $sub ]]; then words="run list show wait cancel retry results output"
                    else case $sub in
                        run) words="$jobflags --dry-run --follow --interval --" ;;
                        list) words="--state --limit --offset" ;;
                        wait) words="--interval" ;;
                        retry) words="--state --follow --interval" ;;
                        results) words="--state" ;;
                    esac; fi ;;
        tags)       if [[ -z $sub ]]; then words="set add remove list"
                    else case $sub in add|remove) words="--host" ;; esac; fi ;;
        filters)    if [[ -z $sub ]]; then words="list create delete"
                    elif [[ $sub == create ]]; then words="--tag --q --status --online --os --agent-version"; fi ;;
        schedules)  if [[ -z $sub ]]; then words="list create pause resume delete runs"
                    else case $sub in
                        create) words="--cron --timezone --at --paused $jobflags --" ;;
                        runs) words="--limit --offset" ;;
                    esac; fi ;;
        webhook-secret) [[ -z $sub ]] && words="show rotate" ;;
        completion) [[ -z $sub ]] && words="bash zsh fish" ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _hostgate_cli hostgate-cli
`

// zshCompletion runs the bash completion through zsh's bashcompinit.
const zshCompletion = `# hostgate-cli completion for zsh: source <(hostgate-cli completion zsh)
(( $+functions[compdef] )) || { autoload -U +X compinit && compinit }
autoload -U +X bashcompinit && bashcompinit
` + bashCompletion

const fishCompletion = `# hostgate-cli completion for fish: hostgate-cli completion fish | source
complete -c hostgate-cli -f
complete -c hostgate-cli -n __fish_use_subcommand -a 'hosts shell read term deliveries jobs tags filters schedules webhook-secret completion version help'
complete -c hostgate-cli -n __fish_use_subcommand -l url -r -d 'hub URL'
complete -c hostgate-cli -n __fish_use_subcommand -l api-key -r -d 'API key'
complete -c hostgate-cli -n __fish_use_subcommand -l config -r -F -d 'config file'
complete -c hostgate-cli -n __fish_use_subcommand -l json -d 'JSON output'
complete -c hostgate-cli -n __fish_use_subcommand -l timeout -r -d 'per-call timeout'
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and not __fish_seen_subcommand_from list create show delete credentials provisioning-payload installer' -a 'list create show delete credentials provisioning-payload installer'
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from create' -l listen-port -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from create' -l credentials
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from delete' -l yes
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from credentials' -l rotate
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from provisioning-payload' -l autologon-user -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from provisioning-payload' -l autologon-password -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from provisioning-payload' -l autologon-generate
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from provisioning-payload' -s o -r -F
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from installer' -l format -r -a 'exe ps1 cmd'
complete -c hostgate-cli -n '__fish_seen_subcommand_from hosts; and __fish_seen_subcommand_from installer' -s o -r -F
complete -c hostgate-cli -n '__fish_seen_subcommand_from shell' -l timeout-s -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from deliveries' -l limit -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from deliveries' -l follow
complete -c hostgate-cli -n '__fish_seen_subcommand_from deliveries' -l interval -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'
complete -c hostgate-cli -n '__fish_seen_subcommand_from jobs; and not __fish_seen_subcommand_from run list show wait cancel retry results output' -a 'run list show wait cancel retry results output'
complete -c hostgate-cli -n '__fish_seen_subcommand_from jobs; and __fish_seen_subcommand_from run' -l tag -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from jobs; and __fish_seen_subcommand_from run' -l host -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from jobs; and __fish_seen_subcommand_from run' -l filter -r
complete -c hostgate-cli -n '__fish_seen_subcommand_from jobs; and __fish_seen_subcommand_from run' -l offline -r -a 'skip queue'
complete -c hostgate-cli -n '__fish_seen_subcommand_from jobs; and __fish_seen_subcommand_from run' -l dry-run
complete -c hostgate-cli -n '__fish_seen_subcommand_from jobs; and __fish_seen_subcommand_from run retry' -l follow
complete -c hostgate-cli -n '__fish_seen_subcommand_from tags; and not __fish_seen_subcommand_from set add remove list' -a 'set add remove list'
complete -c hostgate-cli -n '__fish_seen_subcommand_from filters; and not __fish_seen_subcommand_from list create delete' -a 'list create delete'
complete -c hostgate-cli -n '__fish_seen_subcommand_from schedules; and not __fish_seen_subcommand_from list create pause resume delete runs' -a 'list create pause resume delete runs'
complete -c hostgate-cli -n '__fish_seen_subcommand_from webhook-secret' -a 'show rotate'
`
