#!/usr/bin/env bash
# check-package.sh BUILD_DIR: makes the Debian package from BUILD_DIR (cpack) in a temporary
# folder and checks what it installs for the desktop: every file in place, the desktop entry
# and the AppStream metainfo valid, a plan recognised as application/x-trainplan+json by its
# content (and other JSON not), the man pages rendering without warnings and naming every verb
# and option of `trainplan-cli --help`, and the bash completion completing verbs, options,
# --set paths and choices. CTest runs it (label "packaging"); install-deb.sh goes further and
# installs the package in a clean system.
set -euo pipefail
build=$(cd "$1" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

cpack --config "$build/CPackConfig.cmake" -G DEB -B "$out" >"$out/cpack.log" 2>&1 || { cat "$out/cpack.log" >&2; exit 1; }
deb=$(ls "$out"/*.deb)
dpkg-deb -c "$deb" | awk '{print $6}' >"$out/files"
for f in usr/bin/trainplan usr/bin/trainplan-cli usr/share/applications/trainplan.desktop \
  usr/share/icons/hicolor/scalable/apps/trainplan.svg usr/share/mime/packages/trainplan.xml \
  usr/share/metainfo/org.trainplan.TrainPlan.metainfo.xml usr/share/man/man1/trainplan.1.gz \
  usr/share/man/man1/trainplan-cli.1.gz usr/share/bash-completion/completions/trainplan-cli \
  usr/share/trainplan/examples/70b-2048-h100.json; do
  grep -qx "./$f" "$out/files" || fail "the package does not install /$f"
done
dpkg-deb -x "$deb" "$out/root"
share=$out/root/usr/share

# The desktop entry and the metainfo, by their own validators; the entry opens plan files.
desktop-file-validate "$share/applications/trainplan.desktop" || fail "desktop-file-validate"
grep -qx 'MimeType=application/x-trainplan+json;' "$share/applications/trainplan.desktop" || fail "the desktop entry does not claim plan files"
appstreamcli validate --no-net "$share/metainfo/org.trainplan.TrainPlan.metainfo.xml" >"$out/appstream.log" 2>&1 \
  || { cat "$out/appstream.log" >&2; fail "appstreamcli validate"; }
grep -q '<release version="[0-9]' "$share/metainfo/org.trainplan.TrainPlan.metainfo.xml" || fail "the metainfo's release has no version"

# The MIME type, as GIO finds it (shared-mime-info's rules: magic beats a parent type's glob).
update-mime-database "$share/mime" 2>/dev/null  # (it notes the folder is not on the search path)
mimetype() { XDG_DATA_HOME=$share gio info -a standard::content-type "$1" 2>/dev/null | awk '/content-type/ {print $2}'; }
[ "$(mimetype "$share/trainplan/examples/70b-2048-h100.json")" = application/x-trainplan+json ] \
  || fail "an example plan is $(mimetype "$share/trainplan/examples/70b-2048-h100.json"), not application/x-trainplan+json"
echo '{"name": "not a plan"}' >"$out/other.json"
[ "$(mimetype "$out/other.json")" = application/json ] || fail "other JSON is $(mimetype "$out/other.json"), not application/json"

# The man pages: no warnings from man, and every verb and option of the CLI's usage named.
for page in trainplan trainplan-cli; do
  MANWIDTH=100 man --warnings -l "$share/man/man1/$page.1.gz" >"$out/$page.txt" 2>"$out/$page.err" || fail "man $page"
  [ ! -s "$out/$page.err" ] || { cat "$out/$page.err" >&2; fail "man $page warns"; }
done
cli=$out/root/usr/bin/trainplan-cli
usage=$("$cli" --help)
for word in estimate schedule search export presets fields $(grep -o -- '--[a-z][a-z-]*' <<<"$usage" | sort -u); do
  grep -q -- "$word" "$out/trainplan-cli.txt" || fail "the trainplan-cli man page does not mention $word"
done
gui_options=$(QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=$out "$out/root/usr/bin/trainplan" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)
[ -n "$gui_options" ] || fail "trainplan --help printed no options"
for word in $gui_options; do
  grep -q -- "$word" "$out/trainplan.txt" || fail "the trainplan man page does not mention $word"
done

# The bash completion, driven as bash drives it.
complete_line() {
  PATH=$out/root/usr/bin:$PATH bash -c '
    source /usr/share/bash-completion/bash_completion
    source "$1"
    COMP_LINE=$2; COMP_POINT=${#COMP_LINE}
    read -r -a COMP_WORDS <<<"$COMP_LINE"
    [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    _trainplan_cli trainplan-cli "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$share/bash-completion/completions/trainplan-cli" "$1"
}
expect() {  # LINE WORD: completing LINE offers WORD
  # Captured first: grep -q stopping early would kill the writer with SIGPIPE, which pipefail
  # reports as a failure.
  local offered
  offered=$(complete_line "$1")
  grep -qx -- "$2" <<<"$offered" || fail "completing '$1' does not offer '$2' (offers: $(tr '\n' ' ' <<<"$offered"))"
}
expect "trainplan-cli " estimate
expect "trainplan-cli fi" fields
expect "trainplan-cli search plan.json --red" --red-flags
expect "trainplan-cli search plan.json --red-flags " hide
expect "trainplan-cli estimate plan.json --set layout.t" layout.tp=
expect "trainplan-cli estimate plan.json --set layout.schedule=1" 1f1b
expect "trainplan-cli estimate plan.json --set layout.sequence_parallel=" true
[ -z "$(complete_line "trainplan-cli estimate plan.json --set no.such.field=")" ] || fail "a field that does not exist offers values"

if [ "$failures" -gt 0 ]; then
  echo "$failures packaging check(s) failed" >&2
  exit 1
fi
echo "package $(basename "$deb"): every desktop-integration check passed"
