#!/usr/bin/env bash
# Builds the real Pulumi CLI (pulumi, pulumi-language-nodejs, pulumi-language-yaml and the dynamic-provider plugin
# pulumi-resource-pulumi-nodejs) from the Go module proxy, pinned, into a cache directory outside the
# repository, and prints that bin directory as its last line. A cache that already holds the pinned version is
# reused as it is. Nothing but Go modules is downloaded: no release binary exists that these machines can reach.
#
#   PULUMI_EDIS_CLI_CACHE   where to keep it (default: ${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-edis/cli)
#
# Why each step is as it is: ../shared/REAL-CLI.md (and the README's "The real Pulumi CLI" section).
set -euo pipefail

PULUMI_VERSION="v3.259.0"
# pulumi-language-nodejs has no tags of its own: the commit of pkg/v3.259.0, as a pseudo-version.
LANGUAGE_HOST_VERSION="v3.0.0-20260820084410-a05d88f24d05"
# Pulumi YAML's language host (for the provider plugin's YAML programs): the newest pulumi-yaml release the Go
# module proxy serves here (v1.33 to v1.36 are refused); it speaks the same language-host protocol.
YAML_HOST_VERSION="v1.32.0"

here="$(cd "$(dirname "$0")" && pwd)"
cache_root="${PULUMI_EDIS_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-edis/cli}"
dest="$cache_root/$PULUMI_VERSION"
bin="$dest/bin"

if [[ -x "$bin/pulumi" && -x "$bin/pulumi-language-nodejs" && -x "$bin/pulumi-resource-pulumi-nodejs" && -x "$bin/pulumi-language-yaml" ]] \
   && [[ "$("$bin/pulumi" version 2>/dev/null)" == "$PULUMI_VERSION" ]]; then
    # A cached stand-in language host follows the repository's copy.
    if [[ -f "$bin/pulumi-language-nodejs.js" ]]; then install -m 0644 "$here/pulumi-language-nodejs.js" "$bin/pulumi-language-nodejs.js"; fi
    echo "pulumi $PULUMI_VERSION already in $bin" >&2
    echo "$bin"
    exit 0
fi

command -v go >/dev/null || { echo "install-pulumi: Go is needed to build the Pulumi CLI (go not on PATH)" >&2; exit 1; }

# pkg/v3.259.0 needs Go 1.25.11 or later. An older local Go fetches that toolchain from the Go module proxy
# (GOTOOLCHAIN=auto, a module like any other); a recent one is used as it is.
echo "install-pulumi: building with $(go env GOVERSION)" >&2
export GOTOOLCHAIN=auto CGO_ENABLED=0 GOFLAGS="-mod=mod"
build_flags=(-trimpath -tags osusergo,grpcnotrace
    -ldflags "-w -s -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION")

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin"
started=$SECONDS

# 1. pulumi: pkg/go.mod has replace directives, so `go install pkg@version` refuses; a wrapper module
#    requires it instead and copies the one replace that is not a local path.
mkdir "$work/cli" && cd "$work/cli"
go mod init pulumi-edis.local/pulumi-cli >/dev/null 2>&1
go mod edit -replace github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
go get "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" >&2
go build "${build_flags[@]}" -o "$work/bin/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
echo "install-pulumi: pulumi built after $((SECONDS - started)) s" >&2

# 2. pulumi-language-nodejs, pinned to the same commit, against pkg and sdk at the pinned version. The module has
#    no tags of its own and the Go module proxy may refuse its pseudo-version; then the stand-in beside this
#    script is installed instead (what it does and leaves out: its header), and this says so.
mkdir "$work/lang" && cd "$work/lang"
go mod init pulumi-edis.local/pulumi-language-nodejs >/dev/null 2>&1
go mod edit -replace github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
if go get "github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3@$LANGUAGE_HOST_VERSION" \
       "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" "github.com/pulumi/pulumi/sdk/v3@$PULUMI_VERSION" >"$work/lang.log" 2>&1 \
   && go build "${build_flags[@]}" -o "$work/bin/pulumi-language-nodejs" github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3 >>"$work/lang.log" 2>&1; then
    echo "install-pulumi: pulumi-language-nodejs built after $((SECONDS - started)) s" >&2
else
    echo "install-pulumi: the Go module proxy does not serve pulumi-language-nodejs $LANGUAGE_HOST_VERSION:" >&2
    grep -m 3 -E "error|Forbidden|not available|unknown revision" "$work/lang.log" | sed 's/^/    /' >&2 || true
    echo "install-pulumi: installing the stand-in language host (.ci/pulumi-language-nodejs.js) instead" >&2
    install -m 0644 "$here/pulumi-language-nodejs.js" "$work/bin/pulumi-language-nodejs.js"
    printf '#!/bin/sh\n# The stand-in language host: see the header of pulumi-language-nodejs.js beside this file.\nexec node "$(dirname "$0")/pulumi-language-nodejs.js" "$@"\n' >"$work/bin/pulumi-language-nodejs"
    chmod 0755 "$work/bin/pulumi-language-nodejs"
fi

# 3. The dynamic-provider plugin is a shell script shipped inside the sdk module; the module cache is
#    read-only and not executable, so install a copy.
sdk_dir="$(cd "$work/cli" && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)"
install -m 0755 "$sdk_dir/nodejs/dist/pulumi-resource-pulumi-nodejs" "$work/bin/pulumi-resource-pulumi-nodejs"

# 4. pulumi-language-yaml, from pulumi-yaml's own module (its go.mod pins the pkg and sdk it was released with;
#    `go install module@version` refuses, as the proxy does not list the module's versions, so a wrapper requires it).
mkdir "$work/yaml" && cd "$work/yaml"
go mod init pulumi-edis.local/pulumi-language-yaml >/dev/null 2>&1
go mod edit -replace github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e
go get "github.com/pulumi/pulumi-yaml@$YAML_HOST_VERSION" >&2
go build "${build_flags[@]}" -o "$work/bin/pulumi-language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml >&2
echo "install-pulumi: pulumi-language-yaml $YAML_HOST_VERSION built after $((SECONDS - started)) s" >&2

[[ "$("$work/bin/pulumi" version)" == "$PULUMI_VERSION" ]] || { echo "install-pulumi: built pulumi reports $("$work/bin/pulumi" version), not $PULUMI_VERSION" >&2; exit 1; }
mkdir -p "$dest"
rm -rf "$bin" && mv "$work/bin" "$bin"
echo "install-pulumi: pulumi $PULUMI_VERSION installed in $bin in $((SECONDS - started)) s" >&2
echo "$bin"
