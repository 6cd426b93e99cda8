#!/usr/bin/env bash
# Builds the real Pulumi CLI (pulumi, pulumi-language-nodejs, the dynamic-provider plugin), pinned, from the Go module
# proxy into a cache outside the repository, with what the plugin's other languages need (pulumi-language-yaml, the
# stand-in python and go hosts, a Python environment with the pulumi package), and prints that bin directory last.
# Cached pieces are reused. Only Go modules and PyPI packages are downloaded: no release binary is reachable here.
#
#   PULUMI_EDIS_CLI_CACHE   where to keep it (default: ${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-edis/cli)
#
# Why each step is as it is: ../shared/REAL-CLI.md (and the README's "The real Pulumi CLI" section).
set -euo pipefail

PULUMI_VERSION="v3.259.0"
# pulumi-language-nodejs has no tags of its own: the commit of pkg/v3.259.0, as a pseudo-version.
LANGUAGE_HOST_VERSION="v3.0.0-20260820084410-a05d88f24d05"
# Pulumi YAML's language host: the newest pulumi-yaml release the proxy serves here (v1.33 to v1.36 are refused).
YAML_HOST_VERSION="v1.32.0"

here="$(cd "$(dirname "$0")" && pwd)"
cache_root="${PULUMI_EDIS_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-edis/cli}"
dest="$cache_root/$PULUMI_VERSION"
bin="$dest/bin"

command -v go >/dev/null || { echo "install-pulumi: Go is needed to build the Pulumi CLI (go not on PATH)" >&2; exit 1; }
# pkg/v3.259.0 needs Go 1.25.11 or later: with GOTOOLCHAIN=auto an older local Go fetches it from the proxy.
export GOTOOLCHAIN=auto CGO_ENABLED=0 GOFLAGS="-mod=mod"
build_flags=(-trimpath -tags osusergo,grpcnotrace
    -ldflags "-w -s -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION")
CLIPBOARD_REPLACE="github.com/atotto/clipboard=github.com/tgummerer/clipboard@v0.0.0-20241001131231-d02d263e614e"
started=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# A wrapper module in $work/<name>: `go install pkg@version` refuses pkg/go.mod's replace directives; a wrapper requires
# the modules instead and copies pkg/go.mod's one replace that is not a local path.
wrapper() {
    mkdir -p "$work/$1" && cd "$work/$1"
    go mod init "pulumi-edis.local/$1" >/dev/null 2>&1
    go mod edit -replace "$CLIPBOARD_REPLACE"
}

# The CLI itself, the Node.js language host and the dynamic-provider plugin: what every TypeScript test needs.
build_core() {
    mkdir -p "$work/bin"
    # 1. pulumi.
    wrapper cli
    go get "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" >&2
    go build "${build_flags[@]}" -o "$work/bin/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi >&2
    echo "install-pulumi: pulumi built after $((SECONDS - started)) s" >&2

    # 2. pulumi-language-nodejs at the same commit. If the proxy refuses its pseudo-version (the module has no tags),
    #    the stand-in beside this script is installed instead, and this says so.
    wrapper lang
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

    # 3. The dynamic-provider plugin, a script in the sdk module: copied, as the module cache is not executable.
    local sdk_dir
    sdk_dir="$(cd "$work/cli" && go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)"
    install -m 0755 "$sdk_dir/nodejs/dist/pulumi-resource-pulumi-nodejs" "$work/bin/pulumi-resource-pulumi-nodejs"

    [[ "$("$work/bin/pulumi" version)" == "$PULUMI_VERSION" ]] || { echo "install-pulumi: built pulumi reports $("$work/bin/pulumi" version), not $PULUMI_VERSION" >&2; exit 1; }
    mkdir -p "$dest"
    rm -rf "$bin" && mv "$work/bin" "$bin"
    echo "install-pulumi: pulumi $PULUMI_VERSION installed in $bin after $((SECONDS - started)) s" >&2
}

# What the provider plugin's other languages need, each built only when missing (or, for the stand-in, changed).
build_plugin_languages() {
    # 4. pulumi-language-yaml, from pulumi-yaml's own module (its go.mod pins the pkg and sdk it was released with).
    if [[ ! -x "$bin/pulumi-language-yaml" ]]; then
        wrapper yaml
        go get "github.com/pulumi/pulumi-yaml@$YAML_HOST_VERSION" >&2
        go build "${build_flags[@]}" -o "$bin/pulumi-language-yaml" github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml >&2
        echo "install-pulumi: pulumi-language-yaml $YAML_HOST_VERSION built after $((SECONDS - started)) s" >&2
    fi

    # 5. pulumi-language-python and -go: the proxy refuses the real ones (untagged, 403), so the stand-in in
    #    language-hosts/main.go is built against the pinned pkg and sdk (see its header).
    local stamp
    stamp="$(sha256sum "$here/language-hosts/main.go" | cut -c1-64)"
    if [[ "$(cat "$bin/.language-hosts.sha256" 2>/dev/null)" != "$stamp" || ! -x "$bin/pulumi-language-python" || ! -x "$bin/pulumi-language-go" ]]; then
        wrapper hosts
        cp "$here/language-hosts/main.go" .
        go get "github.com/pulumi/pulumi/pkg/v3@$PULUMI_VERSION" "github.com/pulumi/pulumi/sdk/v3@$PULUMI_VERSION" >&2
        go mod tidy >&2
        go build "${build_flags[@]}" -o "$bin/pulumi-language-python" . >&2
        install -m 0755 "$bin/pulumi-language-python" "$bin/pulumi-language-go"
        local sdk_dir
        sdk_dir="$(go list -m -f '{{.Dir}}' github.com/pulumi/pulumi/sdk/v3)"
        install -m 0644 "$sdk_dir/python/cmd/pulumi-language-python-exec" "$bin/pulumi-language-python-exec"
        echo "$stamp" >"$bin/.language-hosts.sha256"
        echo "install-pulumi: the stand-in pulumi-language-python and pulumi-language-go built after $((SECONDS - started)) s" >&2
    fi

    # 6. A Python environment with the pulumi package (the CLI's version) and what the generated SDK needs, so tests
    #    install nothing from the network: each test's virtualenv reaches it through a .pth file.
    local py="$dest/python-env"
    if [[ ! -x "$py/bin/python" ]] || ! "$py/bin/python" -c "import pulumi, parver, semver, setuptools" 2>/dev/null; then
        command -v python3 >/dev/null || { echo "install-pulumi: python3 is needed for the Python SDK tests" >&2; exit 1; }
        rm -rf "$py" && python3 -m venv "$py"
        "$py/bin/pip" install --quiet --disable-pip-version-check "pulumi==${PULUMI_VERSION#v}" parver semver setuptools wheel >&2
        echo "install-pulumi: Python environment with pulumi ${PULUMI_VERSION#v} in $py after $((SECONDS - started)) s" >&2
    fi
    # mypy, the type checker of the reference's Python examples (build-sdks.sh).
    if ! "$py/bin/python" -c "import mypy" 2>/dev/null; then
        "$py/bin/pip" install --quiet --disable-pip-version-check "mypy==2.4.1" >&2
        echo "install-pulumi: mypy 2.4.1 in $py after $((SECONDS - started)) s" >&2
    fi
}

if [[ -x "$bin/pulumi" && -x "$bin/pulumi-language-nodejs" && -x "$bin/pulumi-resource-pulumi-nodejs" ]] \
   && [[ "$("$bin/pulumi" version 2>/dev/null)" == "$PULUMI_VERSION" ]]; then
    # A cached stand-in language host follows the repository's copy.
    if [[ -f "$bin/pulumi-language-nodejs.js" ]]; then install -m 0644 "$here/pulumi-language-nodejs.js" "$bin/pulumi-language-nodejs.js"; fi
    echo "install-pulumi: pulumi $PULUMI_VERSION already in $bin" >&2
else
    build_core
fi
build_plugin_languages
echo "$bin"
