# debian-source.sh (sourced): fetch_debian_source PACKAGE VERSION WORK downloads Debian's source
# package PACKAGE=VERSION into the directory WORK through a private apt state (deb-src lines derived
# from this machine's own deb sources, deb822 files and one-line lists alike), so the system's apt
# configuration is never changed, and prints the path of its upstream (orig) tarball. On failure it
# prints apt's log and a one-line error naming CALLER (set by the script that sources this) and
# returns 1. Used by contrib/fetch-pmix-examples.sh and contrib/fetch-mpich-tests.sh.
fetch_debian_source() {
    package=$1 version=$2 work=$3
    mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial"
    for f in /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] && sed 's/^Types:.*/Types: deb-src/' "$f" >"$work/parts/$(basename "$f")"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [ -f "$f" ] && sed -n 's/^deb \(.*\)/deb-src \1/p' "$f" >"$work/parts/$(basename "$f").list"
    done
    apt_private() {
        apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$work/parts" \
            -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache" "$@"
    }
    apt_private update >"$work/update.log" 2>&1 || {
        cat "$work/update.log" >&2
        echo "$CALLER: apt-get update of the deb-src lists failed" >&2
        return 1
    }
    (cd "$work" && apt_private source --download-only "$package=$version" >"$work/source.log" 2>&1) || {
        cat "$work/source.log" >&2
        echo "$CALLER: cannot download the source of $package $version" >&2
        return 1
    }
    ls "$work/${package}_"*.orig.tar.* | head -1
}
