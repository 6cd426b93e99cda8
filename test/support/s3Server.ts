// MinIO for the shared journal's tests (built by `npm run s3:install`), on 127.0.0.1 with a fresh data directory.
import { ChildProcess, fork, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { PACKAGE_ROOT } from "./workspace";

/** Where the MinIO binary is: PULUMI_EDIS_S3_SERVER, else what `npm run s3:install` built (it prints the path). */
function s3ServerBinary(): string {
    const given = process.env.PULUMI_EDIS_S3_SERVER;
    if (given) {
        if (!existsSync(given)) throw new Error(`PULUMI_EDIS_S3_SERVER is ${given}, which does not exist: run \`npm run s3:install\``);
        return given;
    }
    const found = spawnSync("bash", [join(PACKAGE_ROOT, ".ci", "install-s3-server.sh")], { encoding: "utf8", env: { ...process.env, PULUMI_EDIS_S3_SERVER_ONLY_CACHED: "1" } });
    const path = found.stdout.trim().split("\n").pop() ?? "";
    if (found.status !== 0 || !existsSync(path)) {
        throw new Error(`the S3 server the journal's tests run (MinIO) is not built: run \`npm run s3:install\` (Go builds it in about 4 minutes)\n${found.stderr}`);
    }
    return path;
}

export interface S3Server {
    /** The environment a process needs to reach it: the AWS SDK's standard variables, as a user's CI sets them. */
    env: Record<string, string>;
    secretAccessKey: string;
    bucket(): Promise<string>;
    /** An s3:// journal URL for a bucket and prefix, with the parameters an S3-compatible endpoint needs. */
    journalUrl(bucket: string, prefix?: string): string;
    /** Requests sent to the server so far, by S3 operation (GetObject, PutObject, ListObjectsV2, DeleteObject, ...). */
    requestCounts(): Promise<Record<string, number>>;
    stop(): Promise<void>;
}

export async function startS3Server(): Promise<S3Server> {
    const binary = s3ServerBinary();
    const dataDir = mkdtempSync(join(tmpdir(), "edis-s3-"));
    const port = await freePort();
    const accessKeyId = `edis${randomBytes(6).toString("hex")}`;
    const secretAccessKey = randomBytes(20).toString("hex");
    const child: ChildProcess = spawn(binary, ["server", dataDir, "--address", `127.0.0.1:${port}`, "--quiet"], {
        env: {
            PATH: process.env.PATH,
            HOME: dataDir,
            MINIO_ROOT_USER: accessKeyId,
            MINIO_ROOT_PASSWORD: secretAccessKey,
            MINIO_BROWSER: "off",
            MINIO_UPDATE: "off",
            MINIO_CI_CD: "1",
        },
        stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (d) => (output += d));
    child.stderr?.on("data", (d) => (output += d));
    const server = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 30_000;
    for (;;) {
        if (child.exitCode !== null) throw new Error(`minio exited ${child.exitCode} at start:\n${output}`);
        try {
            const r = await fetch(`${server}/minio/health/ready`);
            if (r.ok) break;
        } catch {
            // not listening yet
        }
        if (Date.now() > deadline) {
            child.kill("SIGKILL");
            throw new Error(`minio did not become ready within 30 s:\n${output}`);
        }
        await new Promise((r) => setTimeout(r, 100));
    }
    // Requests pass a counting relay (s3Relay.js, its own process) on the way to MinIO, so a test can count the cost.
    const relay = fork(join(PACKAGE_ROOT, "test", "support", "s3Relay.js"), [String(port)], { stdio: ["ignore", "pipe", "inherit", "ipc"] });
    const relayPort = await new Promise<number>((resolve, reject) => {
        relay.stdout!.once("data", (d) => resolve(Number(String(d).trim())));
        relay.once("exit", (code) => reject(new Error(`the S3 relay exited ${code} at start`)));
    });
    const endpoint = `http://127.0.0.1:${relayPort}`;
    const client = new S3Client({
        region: "us-east-1",
        endpoint,
        forcePathStyle: true,
        credentials: { accessKeyId, secretAccessKey },
        requestChecksumCalculation: "WHEN_REQUIRED",
        responseChecksumValidation: "WHEN_REQUIRED",
    });
    let buckets = 0;
    return {
        secretAccessKey,
        // No instance-metadata lookup: the credential chain must never try an address off this machine.
        env: { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, AWS_REGION: "us-east-1", AWS_EC2_METADATA_DISABLED: "true" },
        async bucket() {
            const name = `edis-${process.pid}-${++buckets}-${randomBytes(3).toString("hex")}`;
            await client.send(new CreateBucketCommand({ Bucket: name }));
            return name;
        },
        async requestCounts() {
            return (await (await fetch(`${endpoint}/__relay/counts`)).json()) as Record<string, number>;
        },
        journalUrl(bucket, prefix = "edis-journal") {
            return `s3://${bucket}/${prefix}?endpoint=127.0.0.1:${relayPort}&disableSSL=true&s3ForcePathStyle=true&region=us-east-1`;
        },
        async stop() {
            client.destroy();
            relay.kill("SIGKILL");
            if (child.exitCode === null) {
                const exited = new Promise((r) => child.once("exit", r));
                child.kill("SIGTERM");
                let timer: NodeJS.Timeout | undefined;
                await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 5_000)))]);
                clearTimeout(timer);
                if (child.exitCode === null) child.kill("SIGKILL");
            }
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
}

function freePort(): Promise<number> {
    return new Promise((resolve, reject) => {
        const server = createServer();
        server.once("error", reject);
        server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as { port: number };
            server.close(() => resolve(port));
        });
    });
}
