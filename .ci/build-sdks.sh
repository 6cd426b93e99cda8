#!/usr/bin/env bash
# Builds the plugin's Python and Go SDKs from schema.json with `pulumi package gen-sdk` (Pulumi's code generators;
# nothing hand-written) into sdks/python and sdks/go, and compiles the Go SDK. Needs the CLI and its language hosts
# (PULUMI_EDIS_CLI_BIN, or the bin directory install-pulumi.sh prints). Prints the sdks directory last.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
bin="${PULUMI_EDIS_CLI_BIN:-$(bash "$root/.ci/install-pulumi.sh")}"
out="$root/sdks"
started=$SECONDS
# Built already from this schema.json and reference with this CLI: nothing to do (`npm run test:cli` calls this before its tests).
stamp="$(sha256sum "$root/schema.json" | cut -d' ' -f1) $(cat "$root"/docs/reference/*.md | sha256sum | cut -d' ' -f1) $("$bin/pulumi" version)"
if [[ -f "$out/.built-from" && "$(cat "$out/.built-from")" == "$stamp" ]] && compgen -G "$out/python/dist/*.whl" >/dev/null; then
    echo "build-sdks: sdks/ is built from this schema.json with this CLI" >&2
    echo "$out"
    exit 0
fi
home="$(mktemp -d)" examples="$(mktemp -d)"
trap 'rm -rf "$home" "$examples"' EXIT
rm -rf "$out" && mkdir -p "$out"
for language in python go; do
    PATH="$bin:$PATH" PULUMI_HOME="$home" PULUMI_SKIP_UPDATE_CHECK=true PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true \
        "$bin/pulumi" package gen-sdk "$root/schema.json" --language "$language" --out "$out" >&2
done
echo "build-sdks: gen-sdk wrote python and go after $((SECONDS - started)) s" >&2

# The Python SDK as a wheel (sdks/python/dist/), built with install-pulumi.sh's Python environment (no download).
"$bin/../python-env/bin/python" -m pip wheel --quiet --no-deps --no-build-isolation --disable-pip-version-check \
    -w "$out/python/dist" "$out/python" >&2
echo "build-sdks: $(basename "$out"/python/dist/*.whl) after $((SECONDS - started)) s" >&2

# Every example of the reference pages (docs/reference), word for word, as a user copies it: the Python ones are
# type-checked with mypy against the SDK, the Go ones are type-checked (go vet) with the Go program below.
node -e '
const fs = require("fs"), path = require("path");
const [dir, out] = process.argv.slice(1);
for (const file of fs.readdirSync(dir).filter((f) => f.endsWith(".md"))) {
    const page = path.basename(file, ".md");
    const text = fs.readFileSync(path.join(dir, file), "utf8");
    for (const [, lang, code] of text.matchAll(/^```(python|go)\n([\s\S]*?)^```$/gm)) {
        const target = lang === "python" ? path.join(out, "python", `${page}.py`) : path.join(out, "go", page, "main.go");
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, code);
    }
}' "$root/docs/reference" "$examples"
MYPYPATH="$out/python" "$bin/../python-env/bin/python" -m mypy --follow-imports=silent --cache-dir "$bin/../mypy-cache" --no-error-summary "$examples"/python/*.py >&2
echo "build-sdks: $(ls "$examples"/python | wc -l) Python examples of the reference type-check (mypy) after $((SECONDS - started)) s" >&2

# The Go SDK compiles (and passes vet) as a module of its own, against the CLI's sdk version.
export GOTOOLCHAIN=auto GOFLAGS=-mod=mod CGO_ENABLED=0
(
    cd "$out/go"
    go mod init github.com/pulumi-edis/pulumi-edis/sdk/go >/dev/null 2>&1
    go get "github.com/pulumi/pulumi/sdk/v3@$("$bin/pulumi" version)" >&2
    go mod tidy >&2
    go build ./... >&2
    go vet ./... >&2
)
echo "build-sdks: the Go SDK builds and vets after $((SECONDS - started)) s" >&2
# A Go program references it as docs/installation-configuration.md says (require, and a replace to this directory).
(
    check="$(mktemp -d)" && cd "$check"
    go mod init example.com/edis-check >/dev/null 2>&1
    go mod edit -require=github.com/pulumi-edis/pulumi-edis/sdk/go@v0.1.0 -replace=github.com/pulumi-edis/pulumi-edis/sdk/go="$out/go"
    # What a Go user writes: typed lookup arguments (integers), enums and typed provider settings must compile.
    cat > main.go <<'GO'
package main

import (
	"github.com/pulumi-edis/pulumi-edis/sdk/go/edis"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		plan, err := edis.GetPlan(ctx, &edis.GetPlanArgs{MinRamMb: pulumi.IntRef(2048), MinCpu: pulumi.IntRef(2)})
		if err != nil {
			return err
		}
		provider, err := edis.NewProvider(ctx, "edis", &edis.ProviderArgs{BatchOrders: pulumi.BoolPtr(true), ProvisioningTimeoutSeconds: pulumi.IntPtr(1800), CancellationType: edis.CancellationTypeImmediate})
		if err != nil {
			return err
		}
		_, err = edis.NewKvmServer(ctx, "web", &edis.KvmServerArgs{
			PlanId: pulumi.Int(plan.Id), OsId: pulumi.Int(1012), Hostname: pulumi.String("web1.example.com"),
			BillingCycle: edis.BillingCycleMonthly, CancellationType: edis.CancellationTypeEndOfBillingPeriod, PowerState: edis.PowerStateOn,
		}, pulumi.Provider(provider))
		return err
	})
}
GO
    cp -r "$examples/go" examples
    # The program is built; the examples are type-checked by vet, which compiles each without linking 17 binaries.
    go mod tidy >&2 && go build . >&2 && go vet ./examples/... >&2
    echo "build-sdks: $(ls examples | wc -l) Go examples of the reference type-check (go vet)" >&2
    rm -rf "$check"
)
echo "build-sdks: a Go program (GetPlan with integers, enums, a typed Provider) builds against it with the documented replace after $((SECONDS - started)) s" >&2
echo "$stamp" > "$out/.built-from"
echo "$out"
