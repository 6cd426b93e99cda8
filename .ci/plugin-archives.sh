#!/usr/bin/env bash
# Builds the plugin's release archives, plugins/pulumi-resource-edis-v<version>-<os>-<arch>.tar.gz: the launcher
# `pulumi-resource-edis` (node on the PATH; a .cmd on Windows) and the `npm pack` package with its runtime dependencies,
# one JavaScript tree for every platform. Version: package.json's (release.yml sets it). Reuses archives newer than
# their inputs. Prints the plugins directory last.
#   pulumi plugin install resource edis <version> --file plugins/pulumi-resource-edis-v<version>-linux-amd64.tar.gz
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(node -p "require('$root/package.json').version")"
out="$root/plugins"
platforms=(linux-amd64 linux-arm64 darwin-amd64 darwin-arm64 windows-amd64)

newest_input="$(find "$root/dist/provider" "$root/dist/sdk" "$root/dist/simulator" "$root/package.json" "$root/package-lock.json" "$root/schema.json" -type f -printf '%T@\n' 2>/dev/null | sort -n | tail -1)"
first="$out/pulumi-resource-edis-v$version-${platforms[0]}.tar.gz"
if [[ -f "$first" ]] && awk -v a="$(stat -c %Y "$first")" -v b="$newest_input" 'BEGIN { exit !(a >= b) }'; then
    echo "plugin-archives: $out is newer than what goes into it" >&2
    echo "$out"
    exit 0
fi
for built in provider/plugin/main.js sdk/index.js simulator/index.js; do
    # The build is incremental (tsconfig.json): a dist/ cleaned in part is not rebuilt by it; `npm run prepare` is.
    [[ -f "$root/dist/$built" ]] || { echo "plugin-archives: dist/$built is missing: run \`npm run prepare\` (a clean build)" >&2; exit 1; }
done

started=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
tarball="$(cd "$root" && npm pack --silent --pack-destination "$work" --ignore-scripts | tail -1)"
stage="$work/stage"
mkdir -p "$stage"
echo '{ "private": true }' > "$stage/package.json"
# @pulumi/pulumi is the package's peer (the plugin runs on its gRPC types): the version this repository locks.
pulumi_version="$(node -p "require('$root/package-lock.json').packages['node_modules/@pulumi/pulumi'].version")"
(cd "$stage" && npm install --omit=dev --no-audit --no-fund --no-package-lock --prefer-offline --ignore-scripts \
    "$work/$tarball" "@pulumi/pulumi@$pulumi_version" >&2)
rm "$stage/package.json"
cat > "$stage/pulumi-resource-edis" <<'EOF'
#!/bin/sh
# The EDIS provider plugin: its code runs on the node on the PATH (Node.js 22 or later).
exec node "$(dirname "$0")/node_modules/pulumi-edis/dist/provider/plugin/main.js" "$@"
EOF
chmod +x "$stage/pulumi-resource-edis"

rm -rf "$out" && mkdir -p "$out"
# The POSIX platforms' archives are one archive (the same launcher and tree), compressed once and copied.
tar -czf "$first" -C "$stage" pulumi-resource-edis node_modules
for platform in "${platforms[@]:1}"; do
    if [[ "$platform" == windows-* ]]; then
        printf '@node "%%~dp0node_modules\\pulumi-edis\\dist\\provider\\plugin\\main.js" %%*\r\n' > "$stage/pulumi-resource-edis.cmd"
        tar -czf "$out/pulumi-resource-edis-v$version-$platform.tar.gz" -C "$stage" pulumi-resource-edis.cmd node_modules
    else
        cp "$first" "$out/pulumi-resource-edis-v$version-$platform.tar.gz"
    fi
done
echo "plugin-archives: ${#platforms[@]} archives of $(du -sh "$first" | cut -f1) each in $out after $((SECONDS - started)) s" >&2
echo "$out"
