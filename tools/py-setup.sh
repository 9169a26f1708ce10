#!/usr/bin/env bash
# Builds and tests the Python package (crates/polycd-py) from this checkout: a venv in
# target/pyenv, maturin + numpy + pytest from PyPI, the abi3 wheel (release build) in
# target/wheels, installed into the venv, then the pytest suite. Used by .ci/run.
#   tools/py-setup.sh            build, install, test
#   tools/py-setup.sh --no-test  build and install only
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
if ! command -v "$python" >/dev/null 2>&1; then
  echo "python3 (>= 3.9, with venv and pip) is required for the Python bindings" >&2
  exit 1
fi
venv=target/pyenv
if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/python" -m pip install -q --disable-pip-version-check "maturin>=1.9.4,<2" "numpy>=1.21" "pytest>=7"
# Ray (the polycd.ray extra) and pyarrow for its tests on a local cluster; POLYCD_SKIP_RAY=1 skips it
# loudly (e.g. a machine without PyPI access to Ray's wheels), never silently.
if [ "${POLYCD_SKIP_RAY:-}" = 1 ]; then
  echo "WARNING: POLYCD_SKIP_RAY=1: the Ray test (tests/test_ray.py) is skipped" >&2
else
  # pyarrow: the Parquet input of polycd.ray (its test reads and writes Parquet).
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "ray[data]>=2.9" "pyarrow>=12"
  export POLYCD_REQUIRE_RAY=1
fi

rm -rf target/wheels
start=$(date +%s)
"$venv/bin/maturin" build --release --locked -m crates/polycd-py/Cargo.toml -o target/wheels
echo "wheel built in $(( $(date +%s) - start )) s: $(ls target/wheels)"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --force-reinstall --no-deps target/wheels/polycd-*.whl
"$venv/bin/python" -c "import polycd; a = polycd.ConvexPolyhedron.box(1, 1, 1); print('import polycd: cube distance', polycd.distance(a, None, a, polycd.Pose([2, 0, 0])).distance)"

if [ "${1:-}" = "--no-test" ]; then
  exit 0
fi
# The agreement tests run the CLI: the binary `cargo test --workspace` has built.
if [ -z "${POLYCD_BIN:-}" ]; then
  cargo build -p polycd-cli --locked -q
  export POLYCD_BIN="$PWD/target/debug/polycd"
fi
set +e
"$venv/bin/python" -m pytest -q -p no:cacheprovider crates/polycd-py/tests
rc=$?
set -e
if [ "$rc" = 5 ]; then
  echo "pytest collected no tests: the Python suite is missing" >&2
  exit 1
fi
exit "$rc"
