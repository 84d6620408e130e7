# Parameter precedence through a real program: default < system file < user file < environment <
# command line, each value reported with its source; bad values, integers outside their range, values
# a parameter's validator refuses and bad files are one-line errors; an unknown parameter name is a warning, from prte_info and prte.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/dvm_lib.sh"

sys="$TEST_TMP/etc"
home="$TEST_TMP/home"
mkdir -p "$sys" "$home/.prte"
export PRTE_SYSCONFDIR="$sys" HOME="$home"
param() { grep "^param:ras_base_verbose:$2:" "$TEST_TMP/$1.out" | cut -d: -f4-; }

run default "$PRTE_INFO" --param ras base --parsable
expect_status default 0
[ "$(param default value)" = 0 ] && [ "$(param default source)" = default ] && pass "default" || fail "default: $(param default value) $(param default source)"

echo "ras_base_verbose = 1" >"$sys/prte-mca-params.conf"
run system "$PRTE_INFO" --param ras base --parsable
[ "$(param system value)" = 1 ] && [ "$(param system source)" = "system file $sys/prte-mca-params.conf:1" ] && pass "system file" || fail "system file: $(param system value) $(param system source)"

printf '# user settings\nras_base_verbose = 2\n' >"$home/.prte/mca-params.conf"
run user "$PRTE_INFO" --param ras base --parsable
[ "$(param user value)" = 2 ] && [ "$(param user source)" = "user file $home/.prte/mca-params.conf:2" ] && pass "user file" || fail "user file: $(param user value) $(param user source)"

PRTE_MCA_ras_base_verbose=3 run env "$PRTE_INFO" --param ras base --parsable
[ "$(param env value)" = 3 ] && [ "$(param env source)" = "environment PRTE_MCA_ras_base_verbose" ] && pass "environment" || fail "environment: $(param env value) $(param env source)"

PRTE_MCA_ras_base_verbose=3 run cmd "$PRTE_INFO" --param ras base --parsable --prtemca ras_base_verbose 4
[ "$(param cmd value)" = 4 ] && [ "$(param cmd source)" = "command line --prtemca ras_base_verbose" ] && pass "command line" || fail "command line: $(param cmd value) $(param cmd source)"

run all "$PRTE_INFO" --param all all --parsable
expect_line all out "param:mca_base_component_path:help:"
expect_line all out "param:rmaps_base_verbose:type:int"

# Bad values: a one-line error naming parameter, value and source; non-zero exit.
run badcmd "$PRTE_INFO" --prtemca ras_base_verbose lots
expect_status badcmd 1
expect_line badcmd err "prte_info: error: bad value 'lots' for parameter ras_base_verbose (from command line --prtemca ras_base_verbose): expected an integer"
expect_one_line_errors badcmd

PRTE_MCA_mca_base_component_show_load_errors=perhaps run badbool "$PRTE_INFO"
expect_status badbool 1
expect_line badbool err "bad value 'perhaps' for parameter mca_base_component_show_load_errors (from environment PRTE_MCA_mca_base_component_show_load_errors): expected a boolean"

printf 'ras_base_verbose = 1\nnot a setting\n' >"$home/.prte/mca-params.conf"
run badfile "$PRTE_INFO"
expect_status badfile 1
expect_line badfile err "prte_info: error: $home/.prte/mca-params.conf:2: expected 'name = value', found 'not a setting'"
rm "$home/.prte/mca-params.conf"

# Integer ranges: rml_radix below 1 is refused (prte_info shows the range; prte refuses to start).
run radix_info "$PRTE_INFO" --param all all --parsable
expect_line radix_info out "param:rml_radix:min:1"
run radix_human "$PRTE_INFO" --param all all
expect_line radix_human out "valid range: from 1 to 4294967295"
for v in 0 -1; do
    run "radix$v" "$PRTE" --daemonize --prtemca rml_radix "$v"
    if [ "$(status_of "radix$v")" = 0 ]; then
        "$PTERM" >/dev/null 2>&1
        fail "prte started a DVM with rml_radix $v"
    else
        pass "prte refuses rml_radix $v"
    fi
    expect_line "radix$v" err "prte: error: bad value '$v' for parameter rml_radix (from command line --prtemca rml_radix): expected an integer from 1 to"
    expect_one_line_errors "radix$v"
done
# Values that once meant something else without a word ("4abc" slots read as 4, a misspelt policy as
# cores; a network of 33 bits matched no interface) are refused by the parameters' validators.
for setting in "prte_set_slots 4abc expected cores, hwthreads" "oob_tcp_if_include 198.18.0.0/33 '198.18.0.0/33' is not an IPv4 network"; do
    set -- $setting
    name=$1 value=$2
    shift 2
    run "$name" "$PRTE" --daemonize --prtemca "$name" "$value"
    if [ "$(status_of "$name")" = 0 ]; then
        "$PTERM" >/dev/null 2>&1
        fail "prte started a DVM with $name $value"
    else
        pass "prte refuses $name $value"
    fi
    expect_line "$name" err "prte: error: bad value '$value' for parameter $name (from command line --prtemca $name): $*"
    expect_one_line_errors "$name"
done

# Usage errors: exit 2 with a pointer to --help.
run noval "$PRTE_INFO" --prtemca ras_base_verbose
expect_status noval 2
expect_line noval err "--prtemca needs a parameter name and a value"
run badopt "$PRTE_INFO" --frobnicate
expect_status badopt 2
expect_line badopt err "prte_info: error:"
expect_line badopt err "run 'prte_info --help' for usage"
run badfw "$PRTE_INFO" --param nosuchfw all
expect_status badfw 2
expect_line badfw err "unknown framework 'nosuchfw'"

# An unknown parameter name is only a warning (a component that is not loaded may define it).
run typo "$PRTE_INFO" --prtemca ras_hots_file x
expect_status typo 0
expect_line typo err "prte_info: warning: unknown parameter 'ras_hots_file' (from command line --prtemca ras_hots_file) is ignored"
# ... and prte says so too (docs/parameters.md), once every parameter it uses is registered: the
# PMIx server's, registered last, draws no warning.
start_dvm --prtemca no_such_param 1 --prtemca pmix_server_verbose 0
expect_line prte err "prte: warning: unknown parameter 'no_such_param' (from command line --prtemca no_such_param) is ignored"
expect_no_line prte err "pmix_server_verbose"
stop_dvm

finish
