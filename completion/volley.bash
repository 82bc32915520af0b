# bash completion for volley and volley-ab: options, the values of options
# that take a word from a list, files where a file goes, bundled script
# names after -s, and the subcommands report, compare, merge, ab, llm and convert. It needs
# nothing from the bash-completion package. Installed as
# share/bash-completion/completions/volley (and volley-ab, a link to it).
# tests/integration/test_completion.sh checks that every option of
# `volley --help` and every bundled script is listed here.

_volley_options='-c --connections -t --threads -d --duration -n --requests --iterations
-R --rate --arrivals --max-rps --spin --stages --seed -s --script -H --header -m --method -b --body --body-file
-T --timeout --yield-timeout --max-body --samples --heads --one-first --no-probe --heartbeat
--targets --targets-order --no-keepalive --http1.0 --json --html --hlog --hlog-interval --threshold --fail-if
-q --quiet --progress -L --latency --show-errors -v --verbose --tls-min --tls-max --ciphers
--ciphersuites --groups --sni --no-sni --verify --cacert --cert --key
--tls-resume --http2 --http2=strict --h2c --streams --h2-window
--proxy --noproxy --unix-socket
--allow-host --source --shard --start-at --run-id --setup-only --setup-data --teardown-only --version -h --help'
# The scripts compiled into the binary (scripts/NAME.lua, dots for folders).
_volley_bundled='ab examples.json_check examples.login examples.metric
examples.paths examples.shop examples.wrk_migration llm'
# ApacheBench's flags, for volley ab and volley-ab, and volley ab's own.
_volley_ab_flags='-n -c -t -s -b -B -p -u -T -v -w -i -x -y -z -C -H -A -P -X
-V -k -d -S -q -l -g -e -r -m -h -I -Z -f -E --tls-resume'
_volley_methods='GET HEAD POST PUT PATCH DELETE OPTIONS'
# volley llm's options (vLLM bench serve's) and volley's own it passes through.
_volley_llm_flags='--base-url --host --port --endpoint --backend --model --served-model-name
--num-prompts --request-rate --burstiness --max-concurrency --dataset-name --dataset-path
--random-input-len --random-output-len --random-range-ratio --random-prefix-len --input-len
--output-len --sharegpt-output-len --custom-output-len --ignore-eos --seed --disable-shuffle
--temperature --top-p --top-k --min-p --frequency-penalty --presence-penalty --repetition-penalty
--extra-body --header --request-id-prefix --percentile-metrics --metric-percentiles --goodput
--save-result --save-detailed --append-result --result-dir --result-filename --label --metadata
--json --hlog --html --threshold --fail-if --shard --run-id --timeout --threads --http2 --h2c
--streams --verify --cacert --cert --key --sni --no-sni --max-body --help'

# _volley_add WORDS: the words of WORDS that start with $cur.
_volley_add()
{
    local w
    for w in $(compgen -W "$1" -- "$cur"); do
        COMPREPLY+=("$w")
    done
}

# _volley_files [PATTERN...]: file names that start with $cur (only those
# matching a PATTERN, and folders, when given).
_volley_files()
{
    local f p IFS=$'\n'
    compopt -o filenames 2> /dev/null
    if [ $# -gt 0 ]; then
        for p in "$@"; do
            for f in $(compgen -f -X "!$p" -- "$cur"); do
                COMPREPLY+=("$f")
            done
        done
        for f in $(compgen -d -- "$cur"); do
            COMPREPLY+=("$f")
        done
    else
        for f in $(compgen -f -- "$cur"); do
            COMPREPLY+=("$f")
        done
    fi
}

# _volley_run OPTION EQ: completes $cur after OPTION (EQ=1: in --OPTION=).
_volley_run()
{
    case $1 in
    -s | --script)
        _volley_add "$_volley_bundled"
        _volley_files '*.lua'
        return ;;
    --json)
        _volley_add -
        _volley_files
        return ;;
    --html | --hlog | --body-file | --cacert | --cert | --key | --targets | --setup-only | --setup-data)
        _volley_files
        return ;;
    --progress) _volley_add 'auto bar lines none'; return ;;
    --targets-order) _volley_add 'round-robin random'; return ;;
    --tls-min | --tls-max) _volley_add '1.0 1.1 1.2 1.3'; return ;;
    --tls-resume) _volley_add 'on off'; return ;;
    --arrivals) _volley_add 'fixed poisson gamma:'; compopt -o nospace 2> /dev/null; return ;;
    -m | --method) _volley_add "$_volley_methods"; return ;;
    -c | --connections | -t | --threads | -d | --duration | -n | --requests | --iterations | \
    -R | --rate | --max-rps | --spin | --stages | --seed | -H | --header | -b | --body | -T | --timeout | --yield-timeout | \
    --max-body | --heartbeat | --hlog-interval | --threshold | --fail-if | --ciphers | \
    --ciphersuites | --groups | --sni | --streams | --h2-window | \
    --allow-host | --source | --shard | --start-at | --run-id | --proxy | --noproxy)
        return ;; # a value of the user's own
    --unix-socket) _volley_files; return ;;
    --http2)
        # Its value goes after "=" only: `--http2 X` makes X the URL.
        if [ "$2" = 1 ]; then
            _volley_add strict
            return
        fi ;;
    esac
    if [[ $cur == -* ]]; then
        _volley_add "$_volley_options"
    fi
}

_volley_ab()
{
    case $1 in
    -p | -u | -g | -e | -E) _volley_files; return ;;
    -f) _volley_add 'ALL TLS1 TLS1.1 TLS1.2 TLS1.3'; return ;;
    -m) _volley_add "$_volley_methods"; return ;;
    -v) _volley_add '1 2 3 4'; return ;;
    -T)
        _volley_add 'application/json application/x-www-form-urlencoded text/plain'
        return ;;
    -n | -c | -t | -s | -b | -B | -x | -y | -z | -C | -H | -A | -P | -X | -Z)
        return ;;
    esac
    if [[ $cur == -* ]]; then
        _volley_add "$_volley_ab_flags"
    fi
}

_volley_llm()
{
    case $1 in
    --dataset-path | --json | --hlog | --html | --cacert | --cert | --key) _volley_files; return ;;
    --result-dir) COMPREPLY+=($(compgen -d -- "$cur")); return ;;
    --backend) _volley_add 'openai vllm openai-chat'; return ;;
    --dataset-name) _volley_add 'random sharegpt custom'; return ;;
    --percentile-metrics) _volley_add 'ttft,tpot,itl ttft,tpot,itl,e2el'; return ;;
    esac
    if [[ $cur == -* ]]; then
        _volley_add "$_volley_llm_flags"
    fi
}

# volley convert RECORDING.har, or --curl 'curl ...'.
_volley_convert()
{
    case $1 in
    -o | --output) _volley_files; return ;;
    --curl | --think-min) return ;;
    esac
    if [[ $cur == -* ]]; then
        _volley_add '-o --output --no-assets --think-min --curl --flow -h --help'
    else
        _volley_files '*.har'
    fi
}

# volley report RESULT.json, volley compare BASE.json NEW.json and
# volley merge SHARD.json... [SHARD.hlog...]
_volley_saved()
{
    case $1 in
    --json) _volley_add -; _volley_files; return ;;
    --html | --hlog) _volley_files; return ;;
    --threshold | --fail-if) return ;;
    esac
    if [[ $cur == -* ]]; then
        case $2 in
        report) _volley_add '--json --html --threshold --fail-if -q --help' ;;
        merge) _volley_add '--json --html --hlog --partial -q --help' ;;
        *) _volley_add '--html --threshold --fail-if --help' ;;
        esac
    elif [ "$2" = merge ]; then
        _volley_files '*.json' '*.hlog'
    else
        _volley_files '*.json'
    fi
}

_volley()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev= eq=0 cmd=run first=1 i
    COMPREPLY=()
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # bash splits --opt=value at the "=" (COMP_WORDBREAKS): the option is
    # then the word before it.
    if [ "$cur" = = ]; then
        cur= eq=1
    elif [ "$prev" = = ] && [ "$COMP_CWORD" -gt 1 ]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]} eq=1
    fi
    if [ "${COMP_WORDS[0]##*/}" = volley-ab ]; then
        cmd=ab
    elif [ "$COMP_CWORD" -gt 1 ]; then
        case ${COMP_WORDS[1]} in
        report | compare | merge | ab | llm | convert) cmd=${COMP_WORDS[1]} first=2 ;;
        esac
    fi
    # After "--": the script's arguments, often files.
    for ((i = first; i < COMP_CWORD; i++)); do
        if [ "${COMP_WORDS[i]}" = -- ] && [ "$cmd" = run ]; then
            _volley_files
            return 0
        fi
    done
    case $cmd in
    run)
        if [ "$COMP_CWORD" = 1 ] && [[ $cur != -* ]]; then
            _volley_add 'report compare merge ab llm convert'
        else
            _volley_run "$prev" "$eq"
        fi ;;
    ab) _volley_ab "$prev" ;;
    llm) _volley_llm "$prev" ;;
    convert) _volley_convert "$prev" ;;
    *) _volley_saved "$prev" "$cmd" ;;
    esac
    return 0
}

complete -F _volley volley volley-ab
