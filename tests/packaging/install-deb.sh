#!/usr/bin/env bash
# install-deb.sh: the Debian package on a newcomer's machine. Run it in a clean Debian 12 as
# root, from a clone of the repository (../shared/tools/fresh-machine.sh 'bash
# tests/packaging/install-deb.sh' does exactly that): installs the build dependencies, builds
# the app and the CLI (no tests), makes the .deb, installs it with apt (which pulls in its
# run-time libraries), and checks what a desktop user gets: both programs on the PATH and
# working, a plan file's type and the program that opens it, the software-centre entry, the
# man pages and the bash completion.
set -euo pipefail
cd "$(dirname "$0")/../.."
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

bash .ci/install-deps
cmake -S . -B build-package -G Ninja -DCMAKE_BUILD_TYPE=Release -DTRAINPLAN_BUILD_UI=ON -DTRAINPLAN_BUILD_TESTS=OFF
cmake --build build-package
rm -f build-package/*.deb
(cd build-package && cpack -G DEB)
deb=$(ls "$PWD"/build-package/trainplan_*.deb)
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "$deb" xdg-utils

# Installed, on the PATH, and working outside the source tree.
cd /tmp
command -v trainplan >/dev/null || fail "trainplan is not on the PATH"
command -v trainplan-cli >/dev/null || fail "trainplan-cli is not on the PATH"
trainplan-cli estimate /usr/share/trainplan/examples/70b-2048-h100.json >/tmp/estimate.txt || fail "trainplan-cli estimate"
grep -q "Predicted step" /tmp/estimate.txt || fail "the estimate has no predicted step"
QT_QPA_PLATFORM=offscreen XDG_RUNTIME_DIR=$(mktemp -d) trainplan /usr/share/trainplan/examples/70b-2048-h100.json \
  --screenshot /tmp/window.png --size 1280x720 || fail "trainplan --screenshot"
[ -s /tmp/window.png ] || fail "no screenshot"

# A plan file is a TrainPlan plan to the desktop, and TrainPlan opens it on a double-click.
type=$(gio info -a standard::content-type /usr/share/trainplan/examples/70b-2048-h100.json | awk '/content-type/ {print $2}')
[ "$type" = application/x-trainplan+json ] || fail "an example plan's type is '$type'"
[ -f /usr/share/mime/application/x-trainplan+json.xml ] || fail "shared-mime-info's trigger did not register the type"
grep -q "application/x-trainplan+json=trainplan.desktop" /usr/share/applications/mimeinfo.cache \
  || fail "desktop-file-utils' trigger did not register trainplan.desktop for plans"
opener=$(xdg-mime query default application/x-trainplan+json)
[ "$opener" = trainplan.desktop ] || fail "xdg-mime opens plans with '$opener'"

# The software-centre entry, as AppStream's own tools read the installed system.
appstreamcli validate --no-net /usr/share/metainfo/org.trainplan.TrainPlan.metainfo.xml || fail "metainfo"
appstreamcli refresh-cache --force >/dev/null 2>&1 || true
# (Outputs are captured before grep -q reads them: an early exit would SIGPIPE the writer, which
# pipefail reports.)
component=$(appstreamcli get org.trainplan.TrainPlan || true)
grep -q "TrainPlan" <<<"$component" || fail "appstreamcli does not find org.trainplan.TrainPlan"

# Man pages through man's own search path; completion as an interactive bash loads it.
man -w trainplan-cli >/dev/null || fail "man trainplan-cli not found"
man -w trainplan >/dev/null || fail "man trainplan not found"
page=$(MANWIDTH=80 man trainplan-cli 2>/dev/null || true)
grep -q "EXIT STATUS" <<<"$page" || fail "man trainplan-cli does not render"
offered=$(bash -c '
  source /usr/share/bash-completion/bash_completion
  _completion_loader trainplan-cli
  COMP_LINE="trainplan-cli est"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=(trainplan-cli est); COMP_CWORD=1
  _trainplan_cli trainplan-cli est trainplan-cli
  echo "${COMPREPLY[*]}"')
[ "$offered" = estimate ] || fail "bash completion of 'trainplan-cli est' offered '$offered'"

apt-get remove -y -qq trainplan >/dev/null
[ ! -e /usr/bin/trainplan-cli ] || fail "/usr/bin/trainplan-cli is still there after apt-get remove"

if [ "$failures" -gt 0 ]; then
  echo "$failures installed-package check(s) failed" >&2
  exit 1
fi
echo "installed $(basename "$deb") in a clean system: every check passed"
