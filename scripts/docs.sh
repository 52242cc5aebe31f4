#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the API reference with Doxygen: docs/api/html/index.html (docs/api/ is generated, not
# committed). The opening comment of each public header (what it offers, its semantics) becomes
# a page of its own; the comments before declarations document them.
#   scripts/docs.sh
# Doxygen runs this script as its input filter (docs/Doxyfile): scripts/docs.sh --filter FILE.
set -euo pipefail
cd "$(dirname "$0")/.."

# The opening comment of a header: the // lines after `#pragma once`, without the slashes.
# Lines indented two spaces or more after a blank line (and the ones that follow them) are code.
# mode=page writes them as a Markdown page; mode=filter as a Doxygen \file comment, line for line.
read -r -d '' comment_awk <<'AWK' || true
function escape(text) { gsub(/</, "\\<", text); gsub(/>/, "\\>", text); return text }
BEGIN { lead = 0; code = 0; blank = 1; trailing = 0 }
!done && /^#pragma once/ {
  lead = 1; done = 1
  if (mode == "filter") print "/// \\file"
  next
}
!done { if (mode == "filter") print; next }  # the licence line, say
lead && /^\/\// {
  text = $0; sub(/^\/\/ ?/, "", text)
  if (text ~ /^  / && (blank || code)) {
    if (!code && mode == "page") print "```cpp"
    code = 1
    if (mode == "page") print substr(text, 3); else print "///     " text
  } else {
    if (code && mode == "page") print "```"
    if (code && text != "" && mode == "page") print ""
    code = 0
    if (mode == "page" && text ~ /^Semantics/) {  # a section of its own
      sub(/:$/, "", text)
      print "## " escape(text)
      text = ""
    }
    if (mode == "page") print escape(text); else print "/// " escape(text)
  }
  blank = (text == "")
  next
}
lead {
  if (code && mode == "page") print "```"
  lead = 0
  if (mode == "page") exit
}
mode == "page" { next }
# Below the opening comment (filter only): a comment line of its own documents what follows,
# except section rules (// ---- ...) and the continuation of a comment at the end of a line.
/^[ \t]*\/\/ ----/ { print; trailing = 0; next }
/^[ \t]*\/\// {
  if (!trailing) sub(/\/\//, "///")
  print
  next
}
{ trailing = ($0 ~ /[^ \t][ \t]+\/\/ /); print }
AWK

if [ "${1:-}" = --filter ]; then
  case $2 in
    *.hpp | *.cuh) awk -v mode=filter "$comment_awk" "$2" ;;
    *) cat "$2" ;;
  esac
  exit 0
fi

if ! command -v doxygen >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "docs: installing doxygen"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends doxygen >/dev/null
  else
    echo "docs: doxygen not found; install it with:" >&2
    echo "  sudo apt-get install -y doxygen" >&2
    exit 1
  fi
fi

rm -rf docs/api
mkdir -p docs/api/pages
for header in include/prism/*.hpp include/prism/*.cuh; do
  name=${header#include/}
  id=$(echo "$name" | tr '/.' '__')
  {
    echo "# $name {#$id}"
    echo
    echo "\`#include <$name>\`"
    echo
    awk -v mode=page "$comment_awk" "$header"
  } >"docs/api/pages/$(basename "$header").md"
done

PRISM_VERSION=$(sed -n 's/^project(prism VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt) \
  doxygen docs/Doxyfile
if [ -s docs/api/warnings.log ]; then
  echo "docs: $(wc -l <docs/api/warnings.log) Doxygen warnings in docs/api/warnings.log"
fi
echo "docs: docs/api/html/index.html"
