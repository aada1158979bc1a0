#!/bin/sh
# Installs the OpenCL kernels of the public projects that
# tests/cli/cli_public_kernels.sh packs and tests/device/test_public_kernels.c runs
# (tests/data/public/*/SOURCE.md says which files, from which release, under
# which licence). The kernels are not kept in this repository: they are taken
# unmodified from the projects' released packages, fetched with the ordinary
# clients (apt-get download, pip download), into DIR (default
# build/public-kernels):
#   DIR/hashcat/OpenCL/        hashcat-data 6.2.6+ds1-1 (Debian), MIT
#   DIR/silx/opencl/           silx 3.1.3 (PyPI), MIT
#   DIR/pyfai/openCL/          pyFAI 2026.9.0 (PyPI), MIT
#   DIR/pyclesperanto/         pyclesperanto-prototype 0.24.6 (PyPI), BSD-3-Clause
# Each project's licence text is copied beside its kernels (LICENSE).
# A DIR already holding these versions is left as it is. Exits 1, saying
# what is missing, when a package cannot be had (no network, no apt-get).
set -eu

dir=${1:-build/public-kernels}
stamp="hashcat-data=6.2.6+ds1-1 silx==3.1.3 pyfai==2026.9.0 pyclesperanto-prototype==0.24.6"

if [ -f "$dir/VERSIONS" ] && [ "$(cat "$dir/VERSIONS")" = "$stamp" ]; then
    exit 0
fi
command -v python3 >/dev/null 2>&1 || { echo "public_kernels.sh: python3 is needed" >&2; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/public-kernels.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
new=$tmp/new
mkdir -p "$new"

# hashcat: the Debian package of its kernels (architecture-independent).
(cd "$tmp" && apt-get download -q=2 hashcat-data=6.2.6+ds1-1) >"$tmp/apt.log" 2>&1 || {
    # apt's lists may be missing on a fresh machine; root can fetch them.
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq >/dev/null 2>&1 || true
        (cd "$tmp" && apt-get download -q=2 hashcat-data=6.2.6+ds1-1) >"$tmp/apt.log" 2>&1
    fi
} || { echo "public_kernels.sh: apt-get download hashcat-data failed:" >&2; cat "$tmp/apt.log" >&2; exit 1; }
dpkg-deb -x "$tmp"/hashcat-data_*.deb "$tmp/hc"
mkdir -p "$new/hashcat"
cp -R "$tmp/hc/usr/share/hashcat/OpenCL" "$new/hashcat/OpenCL"
cp "$tmp/hc/usr/share/doc/hashcat-data/copyright" "$new/hashcat/LICENSE"

# The Python projects: their wheels for CPython 3.11 on x86-64 Linux (the
# kernel files are the same in every wheel of a release), unpacked.
python3 -m pip download -q --no-deps --only-binary :all: \
    --platform manylinux_2_28_x86_64 --python-version 3.11 -d "$tmp/whl" \
    silx==3.1.3 pyfai==2026.9.0 pyclesperanto-prototype==0.24.6 >"$tmp/pip.log" 2>&1 ||
    { echo "public_kernels.sh: pip download failed:" >&2; cat "$tmp/pip.log" >&2; exit 1; }
for w in "$tmp"/whl/*.whl; do
    python3 -m zipfile -e "$w" "$tmp/py"
done
mkdir -p "$new/silx" "$new/pyfai" "$new/pyclesperanto"
cp -R "$tmp/py/silx/resources/opencl" "$new/silx/opencl"
cp "$tmp/py/silx-3.1.3.dist-info/copyright" "$new/silx/LICENSE"
cp -R "$tmp/py/pyFAI/resources/openCL" "$new/pyfai/openCL"
cp "$tmp/py/pyfai-2026.9.0.dist-info/copyright" "$new/pyfai/LICENSE"
for t in _tier0 _tier1; do
    mkdir -p "$new/pyclesperanto/$t"
    cp "$tmp/py/pyclesperanto_prototype/$t"/*.cl "$new/pyclesperanto/$t/"
done
cp "$tmp/py/pyclesperanto_prototype-0.24.6.dist-info/licenses/LICENSE" "$new/pyclesperanto/LICENSE"

echo "$stamp" >"$new/VERSIONS"
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
mv "$new" "$dir"
