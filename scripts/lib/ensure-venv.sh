# Sourced by scripts/test and scripts/serve: make .venv hold the package with the wanted
# extras, installing only when something it was built from changed.
#
# A stamp (.venv/.samuel-install) records a hash of what the install depends on
# (pyproject.toml, setup.py, the C sources and their build scripts, the extras asked
# for).  When it matches and the package imports, nothing is installed and the
# network is never touched, so both commands start in well under a second and work
# offline with a complete .venv.  SAMUEL_SETUP_VERBOSE=1 says which way it went;
# SAMUEL_REINSTALL=1 forces an install.

samuel_install_inputs() {
    # The files whose change means the installed package (or its compiled C) is stale.
    {
        printf 'extras %s\n' "$1"
        "$PYTHON" -c 'import sys; print(sys.version)'
        find pyproject.toml setup.py csrc emu704/csrc -type f \
            \( -name '*.c' -o -name '*.h' -o -name '*.py' -o -name '*.toml' \) -print 2>/dev/null \
            | LC_ALL=C sort | while read -r f; do printf '%s ' "$f"; cksum < "$f"; done
    } | cksum | cut -d' ' -f1
}

samuel_ensure_venv() {
    # $1: the pip target with extras, e.g. '.[test,ray]' or '.'; any further arguments are
    # targets with fewer extras that this install also serves (so scripts/test-browser's
    # '.[test,ray,browser]' does not make the next ./scripts/test install again).
    local target=$1 stamp=.venv/.samuel-install want have="" covered
    shift
    if [ ! -x .venv/bin/python ]; then
        "$PYTHON" -m venv .venv
    fi
    want=$(samuel_install_inputs "$target")
    [ -f "$stamp" ] && have=$(cat "$stamp")
    # A stamp made for more extras also serves fewer: '.[test,ray]' covers '.'.
    if [ "${SAMUEL_REINSTALL:-0}" != 1 ] && .venv/bin/python -c 'import engine._core, emu704._fast, samuel.cli' 2>/dev/null; then
        if [ "$have" = "$want" ] || { [ -f "$stamp.covers" ] && grep -qxF "$want" "$stamp.covers"; }; then
            [ "${SAMUEL_SETUP_VERBOSE:-0}" = 1 ] && echo "samuel setup: up to date ($target)" >&2
            return 0
        fi
    fi
    [ "${SAMUEL_SETUP_VERBOSE:-0}" = 1 ] && echo "samuel setup: installing $target" >&2
    .venv/bin/python -m pip install -q --disable-pip-version-check -e "$target"
    printf '%s\n' "$want" > "$stamp"
    # Remember that this install also satisfies the plain package and the targets named.
    for covered in . "$@"; do samuel_install_inputs "$covered"; done > "$stamp.covers"
}
