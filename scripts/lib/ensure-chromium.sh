# Sourced by scripts/test-browser: make sure /usr/bin/chromium exists (Debian's package).
# SAMUEL_CHROMIUM names another Chromium binary and skips the install.

samuel_ensure_chromium() {
    local chromium=${SAMUEL_CHROMIUM:-/usr/bin/chromium} sudo=""
    if [ -x "$chromium" ]; then
        return 0
    fi
    if [ -n "${SAMUEL_CHROMIUM:-}" ]; then
        echo "samuel setup: SAMUEL_CHROMIUM=$chromium is not an executable" >&2
        return 1
    fi
    command -v apt-get >/dev/null || { echo "samuel setup: no $chromium and no apt-get to install it" >&2; return 1; }
    [ "$(id -u)" = 0 ] || sudo=sudo
    echo "samuel setup: installing chromium with apt-get" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends chromium >&2 \
        || { $sudo apt-get update -q >&2 && $sudo env DEBIAN_FRONTEND=noninteractive \
                 apt-get install -y -q --no-install-recommends chromium >&2; }
    [ -x "$chromium" ] || { echo "samuel setup: chromium did not install to $chromium" >&2; return 1; }
}
