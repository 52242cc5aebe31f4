#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the course, a Sphinx site in two languages with the API reference beside it:
#   docs/site/index.html (the choice of language), docs/site/en/, docs/site/zh/, docs/site/api/.
# Sphinx, MyST and matplotlib (docs/course/requirements.txt) go into a virtual environment,
# PRISM_COURSE_VENV (build/course-venv); Doxygen comes from scripts/docs.sh. Warnings are errors.
#   scripts/course.sh            build the site
#   scripts/course.sh --check    build it, then check it: the pages' static tests (pytest
#                                test/course), every program of the course run against the prism
#                                build and the Python module that scripts/test.sh made (blocks.py,
#                                the cpu path; GPU programs run where there is a GPU), and every
#                                page of both languages loaded in headless Chromium (browser.py:
#                                console errors, internal links, images); its report is
#                                docs/site/browser-report.txt
# Run as root on Debian/Ubuntu, missing system packages (python3-venv, doxygen, and for --check
# chromium and chromium-driver) are installed with apt-get; otherwise the line that installs them
# is printed.
set -euo pipefail
cd "$(dirname "$0")/.."
check=0
[ "${1:-}" = --check ] && check=1

need=()
python3 -c "import venv, ensurepip" 2>/dev/null || need+=(python3-venv)
command -v doxygen >/dev/null || need+=(doxygen)
if [ $check = 1 ]; then
  command -v chromium >/dev/null || need+=(chromium)
  command -v chromedriver >/dev/null || need+=(chromium-driver)
fi
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "course: installing ${need[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "course: missing ${need[*]}; install with:" >&2
    echo "  sudo apt-get install -y ${need[*]}" >&2
    exit 1
  fi
fi

venv=${PRISM_COURSE_VENV:-build/course-venv}
requirements=docs/course/requirements.txt
if ! cmp -s "$requirements" "$venv/requirements.txt" 2>/dev/null; then
  echo "course: installing $(grep -c '^[a-z]' "$requirements") packages into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$venv/requirements.txt"
fi

start=$SECONDS
scripts/docs.sh >/dev/null
rm -rf docs/site
for language in en zh; do
  "$venv/bin/python" -m sphinx -W --keep-going -q -b html -c docs/course "docs/course/$language" \
    "docs/site/$language" -d "build/course-doctrees/$language"
done
cp -r docs/api/html docs/site/api
cp docs/course/site-index.html docs/site/index.html
# The icon a browser asks the site's root for (the API reference's pages name none): a PNG.
"$venv/bin/python" -c 'import matplotlib; matplotlib.use("Agg"); import matplotlib.pyplot as plt
fig = plt.figure(figsize=(0.32, 0.32), dpi=100); fig.patch.set_facecolor("#004b6b"); fig.savefig("docs/site/favicon.ico", format="png")'
echo "course: docs/site/index.html (English: docs/site/en/index.html, 中文: docs/site/zh/index.html)" \
  "in $((SECONDS - start)) s"

if [ $check = 1 ]; then
  "$venv/bin/python" -m pytest -q test/course/test_course.py
  blocks=(--require cpu)
  [ -n "${PRISM_COURSE_BUILD:-}" ] && blocks+=(--build "$PRISM_COURSE_BUILD")
  "$venv/bin/python" test/course/blocks.py "${blocks[@]}"
  "$venv/bin/python" test/course/browser.py docs/site --report docs/site/browser-report.txt
fi
