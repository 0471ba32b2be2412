#!/usr/bin/env bash
# Debian packages the project needs: Chromium for the browser tests. Installed only when missing.
set -eu
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v node >/dev/null 2>&1 || need+=(nodejs npm)
# A CJK font so that Chinese renders in headless Chromium (screenshots, browser tests).
fc-list 2>/dev/null | grep -qi "wenquanyi\|noto sans cjk" || need+=(fonts-wqy-microhei)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; else SUDO=; fi
  echo "installing Debian packages: ${need[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
