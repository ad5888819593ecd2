# bash completion for alea: commands, options, and their values' forms.
_alea() {
    local cur prev cmd words
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    cmd=""
    for w in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
        case $w in roll|dist|compare|serve|table|fairness|policy|help) cmd=$w; break ;; esac
    done
    local limits="--max-source --max-depth --max-nodes --max-dice --max-support --max-work
        --max-memory --max-breakdown --max-output --max-cells --tail --timeout --time-limit"
    case $prev in
        -n|--seed|--sample|--threads|--timeout|--time-limit|--tail|--max-*|--boons|--multipliers|--drive|--stat|--cells)
            return 0 ;; # a value: nothing to complete
        --port|--bind|--idle-timeout|--request-timeout|--write-timeout|--log-limit)
            return 0 ;; # a value: nothing to complete
        --dialect)
            mapfile -t COMPREPLY < <(compgen -W "alea roll20 foundry rpgdr d20" -- "$cur")
            return 0 ;;
        --format)
            mapfile -t COMPREPLY < <(compgen -W "text ansi json markdown" -- "$cur")
            return 0 ;;
    esac
    if [[ $cur == -* ]]; then
        case $cmd in
            roll) words="-n --luck --seed --json --format --dialect --max-rolls --help $limits" ;;
            dist) words="--at-least --at-most --all --json --csv --svg --exact --sample --threads --seed --boons
                --multipliers --drive --support --dialect --help $limits" ;;
            compare) words="--at-least --at-most --all --json --csv --svg --exact --pairs --boons --multipliers --drive --support
                --dialect --help $limits" ;;
            table) words="--stat --cells --exact --format --json --csv --svg --dialect --help $limits" ;;
            fairness) words="--json --seed --dialect --help $limits" ;;
            policy) words="--exact --json --csv --dialect --help $limits" ;;
            serve) words="--port --bind --threads --max-connections --max-request --max-rolls --max-response
                --max-client-connections --max-queue --max-client-queue --max-pending
                --request-timeout --write-timeout --log-limit --idle-timeout --dialect --help --max-source
                --max-depth --max-nodes --max-dice --max-support --max-work --max-memory --max-breakdown
                --max-output --max-cells --tail --timeout" ;;
            *) words="--help --version $limits" ;;
        esac
        mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
        return 0
    fi
    if [[ -z $cmd ]]; then
        mapfile -t COMPREPLY < <(compgen -W "roll dist compare serve table fairness policy help" -- "$cur")
    elif [[ $cmd == help ]]; then
        mapfile -t COMPREPLY < <(compgen -W "roll dist compare serve table fairness policy syntax" -- "$cur")
    fi
}
complete -F _alea alea
