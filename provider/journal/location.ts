/**
 * Where the order journal lives, from `edis:journalUrl` / `EDIS_JOURNAL_URL`: file://<dir> (default: the program's
 * `.pulumi-edis/journal`), or s3://<bucket>/<prefix>?... with the query parameters of Pulumi's s3:// backend URLs.
 * S3 credentials come from the AWS SDK's chain, never the URL: a URL is printed in errors and may reach state.
 */
import { homedir } from "node:os";
import { resolve } from "node:path";
import { FileJournalStore, JournalStore, JournalStoreError } from "./store";

export const DEFAULT_JOURNAL_DIR = ".pulumi-edis/journal";

export function defaultJournalDir(): string {
    return resolve(DEFAULT_JOURNAL_DIR);
}

/** "unusable": a setting that names no usable store; every use of the journal fails with the problem, so nothing is ordered. */
export type JournalLocation = { kind: "file"; dir: string } | S3Location | { kind: "unusable"; problem: string };

export interface S3Location {
    kind: "s3";
    /** The URL as given: how errors and printed commands name the store. */
    url: string;
    bucket: string;
    /** The key prefix of the journal's objects, without a trailing "/" ("" for the bucket's root). */
    prefix: string;
    /** A full URL (scheme included) of an S3-compatible endpoint; AWS's own when absent. */
    endpoint?: string;
    region?: string;
    forcePathStyle: boolean;
    profile?: string;
}

const S3_PARAMETERS: Record<string, string> = {
    endpoint: "host[:port] or URL of an S3-compatible store",
    region: "the bucket's region",
    profile: "a profile of the shared AWS config files",
    s3ForcePathStyle: "true for path-style requests (most S3-compatible stores)",
    use_path_style: "the same as s3ForcePathStyle",
    disableSSL: "true for http:// to the endpoint",
    disable_https: "the same as disableSSL",
};

/** The journal's location from a URL, or the problem; relative file:// paths are from `baseDir`. */
export function parseJournalUrl(raw: string, setting: string, baseDir: string = process.cwd()): JournalLocation | { problem: string } {
    const bad = (why: string) => ({ problem: `${setting} ${why}` });
    if (raw.trim() === "") return bad(`is set but empty: set it to file://<dir> or s3://<bucket>/<prefix>, or unset it for the default (the program's ${DEFAULT_JOURNAL_DIR})`);
    const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\//.exec(raw)?.[1]?.toLowerCase();
    if (scheme === "file") {
        // file:///abs and file://localhost/abs are absolute; file://~/dir is in the home directory; file://dir is relative.
        const path = raw.slice("file://".length).replace(/^localhost(?=\/)/i, "");
        if (!path) return bad(`names no directory: use file://<dir>, for example file://.pulumi-edis/journal`);
        const dir = fileDir(path, baseDir);
        return dir === undefined ? bad(`has a malformed %-escape in its path`) : { kind: "file", dir };
    }
    // Never echo the URL: what it holds before an "@" may be a key, and a key may hold "/" and ":".
    if (scheme !== "s3") return bad(`must be a file://<dir> or s3://<bucket>/<prefix> URL, not ${scheme ? `a ${scheme}:// URL` : "a path"}`);
    let url: URL;
    try {
        url = new URL(raw);
    } catch {
        return bad(`is not a URL: s3://<bucket>/<prefix>?endpoint=...&region=...`);
    }
    if (url.username || url.password || raw.slice(5).split(/[/?]/)[0].includes("@")) {
        return bad(`must not hold credentials: the journal's S3 credentials come from the AWS SDK's standard chain (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a profile, or an instance role)`);
    }
    const bucket = url.hostname;
    // Not echoed: a key pasted in its place would be printed.
    if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) return bad(`names a bucket that is not a valid S3 bucket name (3 to 63 of a-z, 0-9, "." and "-")`);
    let prefix: string;
    try {
        prefix = decodeURIComponent(url.pathname).replace(/^\/+|\/+$/g, "");
    } catch {
        return bad(`has a malformed %-escape in its path`);
    }
    const params = new Map<string, string>();
    for (const [name, value] of url.searchParams) {
        if (!(name in S3_PARAMETERS)) {
            return bad(`has the unknown parameter "${name}"; an s3:// journal URL takes ${Object.entries(S3_PARAMETERS).map(([n, what]) => `${n} (${what})`).join(", ")}`);
        }
        params.set(name, value);
    }
    const flag = (...names: string[]): boolean | { problem: string } => {
        for (const n of names) {
            const v = params.get(n);
            if (v === undefined) continue;
            if (v !== "true" && v !== "false") return bad(`parameter ${n} must be "true" or "false", got "${v}"`);
            return v === "true";
        }
        return false;
    };
    const pathStyle = flag("s3ForcePathStyle", "use_path_style");
    if (typeof pathStyle !== "boolean") return pathStyle;
    const insecure = flag("disableSSL", "disable_https");
    if (typeof insecure !== "boolean") return insecure;
    let endpoint = params.get("endpoint");
    if (endpoint !== undefined) {
        if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint)) endpoint = `${insecure ? "http" : "https"}://${endpoint}`;
        try {
            const e = new URL(endpoint);
            if (e.protocol !== "http:" && e.protocol !== "https:") throw new Error();
            if (e.username || e.password || params.get("endpoint")!.includes("@")) return bad(`parameter endpoint must not hold credentials`);
        } catch {
            // Not echoed: a mistyped value may hold a key.
            return bad(`parameter endpoint must be host[:port] or an http(s) URL`);
        }
    }
    return { kind: "s3", url: raw, bucket, prefix, endpoint, region: params.get("region") || undefined, forcePathStyle: pathStyle, profile: params.get("profile") || undefined };
}

function fileDir(path: string, baseDir: string): string | undefined {
    if (path === "~" || path.startsWith("~/")) return resolve(homedir(), path.slice(2));
    try {
        return resolve(baseDir, decodeURIComponent(path));
    } catch {
        return undefined;
    }
}

/** The store at a location; `@aws-sdk/client-s3` (an optional peer) loads only for S3, and without it every use fails. */
function openJournalStore(location: JournalLocation): JournalStore {
    if (location.kind === "file") return new FileJournalStore(location.dir);
    if (location.kind === "unusable") return unusableStore(location.problem);
    let s3: typeof import("./s3Store");
    try {
        s3 = require("./s3Store") as typeof import("./s3Store");
    } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND" || !String((e as Error).message).includes("@aws-sdk/client-s3")) throw e;
        return unusableStore(
            `a journal in S3 (${location.url}) needs the AWS SDK's S3 client, which is not installed: run \`npm install @aws-sdk/client-s3\` in the program's directory`,
        );
    }
    return new s3.S3JournalStore(location);
}

/** One S3 client (and its connections) per store. */
const opened = new Map<string, JournalStore>();

export function journalStoreAt(location: JournalLocation): JournalStore {
    const id = JSON.stringify(location);
    let store = opened.get(id);
    if (!store) opened.set(id, (store = openJournalStore(location)));
    return store;
}

export function journalLocationFrom(url: string | undefined, setting: string): JournalLocation {
    if (url === undefined) return { kind: "file", dir: defaultJournalDir() };
    const parsed = parseJournalUrl(url, setting);
    return "problem" in parsed ? { kind: "unusable", problem: parsed.problem } : parsed;
}

function unusableStore(problem: string): JournalStore {
    const fail = async (): Promise<never> => {
        throw new JournalStoreError(`the order journal cannot be used: ${problem}`);
    };
    return { location: "(unusable setting)", cliOption: "", get: fail, create: fail, replace: fail, list: fail };
}
