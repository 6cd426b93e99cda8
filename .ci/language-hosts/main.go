// A stand-in for Pulumi's Python and Go language hosts, installed by install-pulumi.sh because the Go module proxy here
// refuses the real ones (no tags; their pseudo-versions answer 403). One program, built twice: the name it is started
// under says which language it serves. As the real hosts (pkg/v3.259.0): GeneratePackage (`pulumi package gen-sdk`)
// runs Pulumi's own code generators (pkg/v3/codegen/python, go) on the bound schema, so the SDKs are Pulumi's codegen
// output; Run (Python only) starts the program with the pulumi package's executor script (pulumi-language-python-exec,
// installed beside this binary) under its virtualenv, with the engine's arguments and PULUMI_CONFIG /
// PULUMI_CONFIG_SECRET_KEYS; GetRequiredPlugins/Packages are unimplemented (read as none). Left out: `pulumi install`,
// `new`, `about`, program generation, policy packs, debugging, and Go programs.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	gogen "github.com/pulumi/pulumi/pkg/v3/codegen/go"
	pygen "github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

const version = "3.259.0"

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	language string
	engine   string
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (h *host) GeneratePackage(ctx context.Context, req *pulumirpc.GeneratePackageRequest) (*pulumirpc.GeneratePackageResponse, error) {
	client, err := schema.NewLoaderClient(req.GetLoaderTarget())
	if err != nil {
		return nil, err
	}
	defer client.Close()
	loader := schema.NewCachedLoader(client)
	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.GetSchema()), &spec); err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{})
	if err != nil {
		return nil, err
	}
	if diags.HasErrors() {
		return nil, fmt.Errorf("the schema does not bind: %s", diags.Error())
	}
	var files map[string][]byte
	switch h.language {
	case "python":
		files, err = pygen.GeneratePackage("pulumi-language-python", pkg, req.GetExtraFiles(), loader)
	case "go":
		files, err = gogen.GeneratePackage("pulumi-language-go", pkg, req.GetLocalDependencies())
	}
	if err != nil {
		return nil, err
	}
	for name, content := range files {
		path := filepath.Join(req.GetDirectory(), name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return nil, err
		}
	}
	return &pulumirpc.GeneratePackageResponse{}, nil
}

// Run starts a Python program as the real host does: `python -u pulumi-language-python-exec <flags> <program>`.
func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	if h.language != "python" {
		return nil, fmt.Errorf("this stand-in runs no %s programs", h.language)
	}
	info := req.GetInfo()
	dir := req.GetPwd()
	entry := req.GetProgram()
	python := "python3"
	if info != nil {
		dir = info.GetProgramDirectory()
		entry = info.GetEntryPoint()
		if venv := info.GetOptions().GetFields()["virtualenv"].GetStringValue(); venv != "" {
			if !filepath.IsAbs(venv) {
				venv = filepath.Join(info.GetRootDirectory(), venv)
			}
			python = filepath.Join(venv, "bin", "python")
		}
	}
	if entry == "" {
		entry = "."
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	args := []string{"-u", filepath.Join(filepath.Dir(self), "pulumi-language-python-exec"),
		"--monitor", req.GetMonitorAddress(), "--engine", h.engine, "--project", req.GetProject(), "--stack", req.GetStack(),
		"--pwd", dir, "--dry_run", fmt.Sprint(req.GetDryRun()), "--parallel", fmt.Sprint(req.GetParallel())}
	if req.GetOrganization() != "" {
		args = append(args, "--organization", req.GetOrganization())
	}
	if info != nil && info.GetRootDirectory() != "" {
		args = append(args, "--root_directory", info.GetRootDirectory())
	}
	args = append(append(args, entry), req.GetArgs()...)

	// Keys as the engine sends them, `<namespace>:<name>`: what the Python SDK reads (the real host passes them unchanged).
	configJSON, _ := json.Marshal(req.GetConfig())
	secretsJSON, _ := json.Marshal(req.GetConfigSecretKeys())
	cmd := exec.CommandContext(ctx, python, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), "PULUMI_CONFIG="+string(configJSON), "PULUMI_CONFIG_SECRET_KEYS="+string(secretsJSON), "PYTHONUNBUFFERED=1")
	if err := cmd.Run(); err != nil {
		if exit, ok := err.(*exec.ExitError); ok {
			// 32: the program has already told the user what went wrong (the SDK's "bail").
			if status, ok := exit.Sys().(syscall.WaitStatus); ok && status.ExitStatus() == 32 {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exit.ExitCode())}, nil
		}
		return &pulumirpc.RunResponse{Error: fmt.Sprintf("Problem executing program (could not run language executor): %v", err)}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

func main() {
	name := filepath.Base(os.Args[0])
	h := &host{language: strings.TrimPrefix(name, "pulumi-language-")}
	if h.language != "python" && h.language != "go" {
		fmt.Fprintf(os.Stderr, "%s: start me as pulumi-language-python or pulumi-language-go\n", name)
		os.Exit(1)
	}
	if len(os.Args) > 1 {
		h.engine = os.Args[len(os.Args)-1]
	}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
