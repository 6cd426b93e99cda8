#!/usr/bin/env bash
# The project's size as issue 37 counts it: every code file (.ts .js .go .sh .py) under provider/, sdk/, simulator/,
# bench/ and .ci/ (product) and under test/ (tests), as committed, after prettier at 120 columns: joining lines is no cut.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$root"
git ls-files provider sdk simulator bench .ci test | tar cf - -T - | (cd "$work" && tar xf -)
cd "$work"
"$root/node_modules/.bin/prettier" --print-width 120 --tab-width 4 --log-level silent --write "**/*.ts" "**/*.js" ".ci/**/*.ts" ".ci/**/*.js"
count() { find "$@" -type f \( -name '*.ts' -o -name '*.js' -o -name '*.go' -o -name '*.sh' -o -name '*.py' \) -print0 | xargs -0 cat | wc -l; }
echo "product $(count provider sdk simulator bench .ci)"
echo "tests $(count test)"
