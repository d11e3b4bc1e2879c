#!/usr/bin/env bash
# Installs everything flowvm needs to build, test and fuzz, using apt-get only.
#
#   bash scripts/setup.sh           # build + test dependencies
#   bash scripts/setup.sh --bench   # ... plus python3-torch for the peer benchmarks
#
# Idempotent: when every package is already installed it does not call apt-get
# at all; otherwise it runs `apt-get update` once and installs what is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build g++ clang
  libclang-rt-14-dev            # libFuzzer + sanitizer runtimes for clang
  pkg-config
  libprotobuf-dev protobuf-compiler ccache
  libgrpc++-dev protobuf-compiler-grpc   # the distributed runtime's RPCs
  iproute2                      # network namespaces of the several-hosts and partition tests
  openssl                       # throwaway CAs and certificates of the TLS tests
  libeigen3-dev libopenblas-dev libdnnl-dev
  libisal-dev                   # CRC32C for checkpoints and summaries
  libpng-dev                    # PNG images of ImageSummary
  libgtest-dev libgmock-dev libbenchmark-dev
  python3-numpy
  python3-dev pybind11-dev      # the flowvm Python package (python/)
  python3-protobuf              # ... its messages (GraphDef, ConfigProto, Event) in Python
  python3-pytest                # its pytest suites
  zlib1g-dev                    # reading the gzip'd example datasets
  nlohmann-json3-dev            # JSON (header-only): Chrome traces of steps
  libcpp-httplib-dev            # the HTTP server of `flowvm board`
  # Datasets of the training examples (examples/common/datasets.h):
  python3-sklearn               # 8x8 digits, sklearn/datasets/data/digits.csv.gz
  dataset-fashion-mnist         # /usr/share/datasets/fashion-mnist/*.gz
  chromium                      # the board's real-browser test (headless, driven by playwright-core)
)
# The board's front end is built with node; Debian's packages when none is on PATH.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

for arg in "$@"; do
  case "$arg" in
    --bench) packages+=(python3-torch) ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown argument '$arg' (expected --bench)" >&2; exit 2 ;;
  esac
done

# Which packages are not installed yet? (dpkg-query fails for unknown names.)
missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "installed" ]]; then
    missing+=("$pkg")
  fi
done

# The board's npm packages (esbuild, uPlot, dagre, playwright-core), exactly as
# tools/board/web/package-lock.json pins them; again whenever the lock file is
# newer than what was installed.
install_board_web() {
  local web
  web="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tools/board/web"
  [[ -f "$web/package-lock.json" ]] || return 0
  if [[ -f "$web/node_modules/.package-lock.json" && ! "$web/package-lock.json" -nt "$web/node_modules/.package-lock.json" ]]; then
    return 0
  fi
  echo "setup.sh: npm ci in tools/board/web"
  if ! npm ci --prefix "$web" --no-audit --no-fund --loglevel=error </dev/null; then
    echo "setup.sh: ERROR: 'npm ci' failed in $web; check access to the npm registry" >&2
    exit 1
  fi
}

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "setup.sh: all ${#packages[@]} packages already installed"
  install_board_web
  exit 0
fi

echo "setup.sh: installing ${missing[*]}"

as_root=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    echo "setup.sh: need root to install packages (${missing[*]}), and sudo is not available" >&2
    exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update </dev/null; then
  echo "setup.sh: ERROR: 'apt-get update' failed; check network access and /etc/apt/sources.list" >&2
  exit 1
fi
if ! "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}" </dev/null; then
  echo "setup.sh: ERROR: 'apt-get install' failed for: ${missing[*]}" >&2
  exit 1
fi
install_board_web
echo "setup.sh: done"
