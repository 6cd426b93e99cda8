/**
 * The order journal in S3, shared by every CI runner. create is PutObject If-None-Match: *, replace and removal
 * If-Match (MinIO ignores If-Match on DeleteObject). The SDK retries a write whose answer was lost, which then gets 412
 * on its own object: a 412 is a conflict only when the object holds another body (each body carries a nonce).
 */
import { randomBytes } from "node:crypto";
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { JournalConflictError, JournalStore, JournalStoreError, StoredObject, shellQuote } from "./store";
import type { S3Location } from "./location";

/** Objects smaller than this are tombstones (39 bytes; an entry has hundreds): listings skip them unread. */
const TOMBSTONE_MAX_BYTES = 64;

const REQUEST_TIMEOUT_MS = 15_000;
const CONNECT_TIMEOUT_MS = 5_000;

export class S3JournalStore implements JournalStore {
    private readonly client: S3Client;
    private conditionalWrites?: Promise<void>;

    constructor(private readonly at: S3Location) {
        this.client = new S3Client({
            region: at.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? (at.endpoint ? "us-east-1" : undefined),
            endpoint: at.endpoint,
            forcePathStyle: at.forcePathStyle,
            profile: at.profile,
            maxAttempts: 3,
            requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS },
            // Checksums only where S3 requires them: several S3-compatible stores refuse the SDK's default trailers.
            requestChecksumCalculation: "WHEN_REQUIRED",
            responseChecksumValidation: "WHEN_REQUIRED",
        });
    }

    get location(): string {
        return this.at.url;
    }

    get cliOption(): string {
        return `--journal ${shellQuote(this.at.url)}`;
    }

    async get(name: string): Promise<StoredObject | undefined> {
        try {
            const answer = await this.client.send(new GetObjectCommand({ Bucket: this.at.bucket, Key: this.key(name) }));
            const body = (await answer.Body?.transformToString("utf8")) ?? "";
            return { body, version: answer.ETag ?? "" };
        } catch (e) {
            // Only "no such key" is an absent entry: a missing bucket, a proxy's 404 page or a refusal is a failure.
            if (errorName(e) === "NoSuchKey") return undefined;
            throw this.failure("read", name, e);
        }
    }

    async create(name: string, body: string): Promise<string> {
        // Asked again after a failure to ask (the store unreachable), never after an answer.
        await (this.conditionalWrites ??= this.checkConditionalWrites().catch((e) => {
            this.conditionalWrites = undefined;
            throw e;
        }));
        try {
            return await this.put(name, body, { IfNoneMatch: "*" });
        } catch (e) {
            if (!isPreconditionFailure(e)) throw this.failure("written", name, e);
            return this.ownWriteOr(name, body, `an entry ${this.key(name)} exists already`);
        }
    }

    async replace(name: string, body: string, version: string): Promise<string> {
        try {
            return await this.put(name, body, { IfMatch: version });
        } catch (e) {
            if (!isPreconditionFailure(e) && status(e) !== 404) throw this.failure("written", name, e);
            return this.ownWriteOr(name, body, `the entry ${this.key(name)} was changed or removed by another deployment`);
        }
    }

    async list(prefix: string): Promise<string[]> {
        const names: string[] = [];
        const base = this.key("");
        let token: string | undefined;
        try {
            do {
                const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.at.bucket, Prefix: base + prefix, ContinuationToken: token }));
                for (const o of page.Contents ?? []) if (o.Key?.endsWith(".json") && (o.Size ?? TOMBSTONE_MAX_BYTES) >= TOMBSTONE_MAX_BYTES) names.push(o.Key.slice(base.length));
                token = page.IsTruncated ? page.NextContinuationToken : undefined;
            } while (token);
        } catch (e) {
            throw this.failure("listed", prefix, e);
        }
        return names;
    }

    /** Refuses a store that ignores If-None-Match or If-Match: two deployments could both claim one write. */
    private async checkConditionalWrites(): Promise<void> {
        const probe = `.conditional-write-probe-${randomBytes(8).toString("hex")}`;
        const refused = async (write: () => Promise<unknown>): Promise<boolean> =>
            write().then(
                () => false,
                (e) => {
                    if (isPreconditionFailure(e)) return true;
                    throw this.failure("written", probe, e);
                },
            );
        try {
            await this.put(probe, "1", { IfNoneMatch: "*" }).catch((e) => {
                throw this.failure("written", probe, e);
            });
            const createRefused = await refused(() => this.put(probe, "2", { IfNoneMatch: "*" }));
            const replaceRefused = await refused(() => this.put(probe, "3", { IfMatch: '"0123456789abcdef0123456789abcdef"' }));
            if (!createRefused || !replaceRefused) {
                throw new JournalStoreError(
                    `the order journal at ${this.at.url} cannot be used: the store ignores S3 conditional writes (${createRefused ? "" : "If-None-Match on PutObject"}` +
                        `${!createRefused && !replaceRefused ? ", " : ""}${replaceRefused ? "" : "If-Match on PutObject"}), so two deployments could both send one paid ` +
                        `write. Use a store that honours them (Amazon S3, MinIO, and others), or the journal in a directory.`,
                );
            }
        } finally {
            await this.client.send(new DeleteObjectCommand({ Bucket: this.at.bucket, Key: this.key(probe) })).catch(() => undefined);
        }
    }

    private async put(name: string, body: string, condition: { IfNoneMatch?: string; IfMatch?: string }): Promise<string> {
        const answer = await this.client.send(
            new PutObjectCommand({ Bucket: this.at.bucket, Key: this.key(name), Body: body, ContentType: "application/json", ...condition }),
        );
        return answer.ETag ?? "";
    }

    /** After a 412: the object holds this very body (a retried write of ours) → its version; else the conflict. */
    private async ownWriteOr(name: string, body: string, conflict: string): Promise<string> {
        const now = await this.get(name);
        if (now?.body === body) return now.version;
        throw new JournalConflictError(conflict);
    }

    private key(name: string): string {
        return this.at.prefix ? `${this.at.prefix}/${name}` : name;
    }

    private failure(what: "read" | "written" | "removed" | "listed", name: string, e: unknown): JournalStoreError {
        const code = errorName(e);
        const http = status(e);
        let why = `${code && code !== "Error" ? `${code}: ` : ""}${(e as Error)?.message ?? String(e)}${http ? ` (HTTP ${http})` : ""}`;
        if (code === "CredentialsProviderError" || /credential/i.test(why)) {
            why += `; the journal's S3 credentials come from the AWS SDK's standard chain: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, AWS_PROFILE or the URL's profile parameter, or an instance or task role`;
        }
        return new JournalStoreError(`the order journal at ${this.at.url} could not be ${what} (${this.key(name) || "/"}): ${why}`);
    }
}

function status(e: unknown): number | undefined {
    return (e as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function errorName(e: unknown): string | undefined {
    return (e as { name?: string; Code?: string })?.Code ?? (e as Error)?.name;
}

/** 409 ConditionalRequestConflict: two conditional writes of one key raced. */
function isPreconditionFailure(e: unknown): boolean {
    const s = status(e);
    const n = errorName(e);
    return s === 412 || n === "PreconditionFailed" || (s === 409 && n === "ConditionalRequestConflict");
}
