# The Debian package of `make deb`, built here the same way (cpack -G DEB
# with the build's CPackConfig.cmake) into a temporary folder: its control
# fields (dpkg-deb -f), its Depends naming the Debian package of every
# shared library volley links, its file list (dpkg-deb -c), a stripped
# binary; then unpacked with dpkg -x, the volley inside runs, makes a short
# run against volley-target, and its man pages and completion work
# (check_installed, pkg_lib.sh). Skipped (77) without cpack, dpkg-deb or
# dpkg-shlibdeps (dpkg-dev; make test installs it).
source "$TESTLIB"
source "$(dirname "$TESTLIB")/pkg_lib.sh"

for tool in cpack dpkg-deb dpkg-shlibdeps; do
    if ! command -v "$tool" > /dev/null; then
        echo "SKIP: $tool not found (apt-get install -y cmake dpkg-dev; make test installs them)"
        exit 77
    fi
done

if ! cpack --config "$BUILD/CPackConfig.cmake" -G DEB -B "$T/pkg" > "$T/cpack.out" 2>&1; then
    fail "cpack: $(cat "$T/cpack.out")"
    finish
fi
version=$("$VOLLEY" --version | sed -n '1s/^volley //p')
arch=$(dpkg --print-architecture)
deb=$T/pkg/volley_${version}_$arch.deb
if [ -f "$deb" ]; then ok; else fail "no $(basename "$deb") in: $(ls "$T/pkg")"; finish; fi

field() { dpkg-deb -f "$deb" "$1"; }
check_eq "$(field Package)" volley "Package"
check_eq "$(field Version)" "$version" "Version"
check_eq "$(field Architecture)" "$arch" "Architecture"
check_eq "$(field Section)" web "Section"
check_grep <(field Maintainer) '^[^<]+ <[^@ ]+@[^> ]+>$' "Maintainer: a name and an address"
check_grep <(field Description) '^HTTP load generator, scriptable in Lua$' "Description"

# Depends: the package that holds each library volley needs (its NEEDED
# entries, found where ldd finds them), with a version where its shlibs
# file gives one (libasan8's, in an ASan build, gives none).
depends=$(field Depends)
# owner PATH: the package holding PATH, by any of its names (with /usr
# merged, /lib/x/libm.so.6 may be registered as /usr/lib/x/libm.so.6).
owner() {
    local p
    for p in "$1" "/usr$1" "${1#/usr}" "$(readlink -f "$1")"; do
        dpkg -S "$p" 2> /dev/null | sed -n '1s/[:,].*//p' | grep . && return
    done
    true
}
while read -r lib path; do
    pkg=$(owner "$path")
    if [ -z "$pkg" ]; then
        fail "Depends: no Debian package holds $lib ($path)"
    elif grep -qE "(^|, |\\| )$pkg( \\(>= [^)]+\\))?(,|\$| \\|)" <<< "$depends"; then
        ok
    else
        fail "Depends: no $pkg (for $lib) in: $depends"
    fi
done < <(objdump -p "$VOLLEY" | awk '$1 == "NEEDED" { print $2 }' | while read -r lib; do
    ldd "$VOLLEY" | awk -v lib="$lib" '$1 == lib && $2 == "=>" { print lib, $3 }'
done)
check_grep <(echo "$depends") 'libev4 .*libhttp-parser2\.9 .*libluajit' "Depends: the libraries of libev, http-parser and LuaJIT"

# The file list: volley's files under ./usr, nothing of the tests.
dpkg-deb -c "$deb" | awk '{ print $6, $7, $8 }' | sed 's/ *$//' > "$T/files"
for f in ./usr/bin/volley "./usr/bin/volley-ab -> volley" ./usr/share/man/man1/volley.1.gz \
    ./usr/share/man/man1/volley-ab.1.gz ./usr/share/bash-completion/completions/volley \
    "./usr/share/bash-completion/completions/volley-ab -> volley" ./usr/share/zsh/vendor-completions/_volley \
    ./usr/share/doc/volley/README.md ./usr/share/doc/volley/docs/usage.md; do
    if grep -qxF -- "$f" "$T/files"; then ok; else fail "dpkg-deb -c: no $f in: $(cat "$T/files")"; fi
done
check_eq "$(grep -vE '^\./usr/' "$T/files" || true)" "" "dpkg-deb -c: files outside ./usr"
check_eq "$(grep -E 'volley-target|hlog_sample|malloc_count|\.a$|\.h$' "$T/files" || true)" "" "dpkg-deb -c: test programs or build files"

mkdir "$T/root"
if dpkg -x "$deb" "$T/root"; then ok; else fail "dpkg -x"; fi
check_eq "$(readelf -S "$T/root/usr/bin/volley" | grep -c '\.debug_info' || true)" 0 "the packaged volley is stripped"
start_target
check_installed "$T/root/usr" "the package"
finish
