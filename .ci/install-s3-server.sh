#!/usr/bin/env bash
# Builds MinIO, the real S3 server (conditional writes, ETags, listings, signatures v4) the journal's tests run on
# 127.0.0.1, pinned by pseudo-version from the Go module proxy into a cache outside the repository (reused), and prints
# the binary's path last.
#
#   PULUMI_EDIS_S3_SERVER_CACHE        where to keep it (default: ${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-edis/minio)
#   PULUMI_EDIS_S3_SERVER_ONLY_CACHED  print the cached binary's path, or fail; never build (what the tests ask)
set -euo pipefail

MINIO_VERSION="v0.0.0-20260212201848-7aac2a2c5b7c"

cache_root="${PULUMI_EDIS_S3_SERVER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-edis/minio}"
dest="$cache_root/$MINIO_VERSION"
if [[ -x "$dest/minio" ]]; then
    echo "minio $MINIO_VERSION already in $dest" >&2
    echo "$dest/minio"
    exit 0
fi
# Asked by a test where the binary is: say, never build there.
[[ -z "${PULUMI_EDIS_S3_SERVER_ONLY_CACHED:-}" ]] || { echo "install-s3-server: minio $MINIO_VERSION is not in $dest" >&2; exit 1; }
command -v go >/dev/null || { echo "install-s3-server: Go is needed to build MinIO (go not on PATH)" >&2; exit 1; }

started=$SECONDS
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "install-s3-server: building minio $MINIO_VERSION with $(go env GOVERSION)" >&2
GOTOOLCHAIN=auto CGO_ENABLED=0 GOBIN="$work" go install -trimpath -ldflags "-s -w" "github.com/minio/minio@$MINIO_VERSION" >&2
mkdir -p "$dest"
mv "$work/minio" "$dest/minio"
echo "install-s3-server: minio installed in $dest in $((SECONDS - started)) s" >&2
echo "$dest/minio"
