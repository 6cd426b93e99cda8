/**
 * The order journal: a record on disk of every paid or non-repeatable write (add/order, add/upgrade, and
 * hooks/set, which adds a traffic hook each time and cannot be listed) that survives a crash of
 * the provider host or of the whole deployment, wherever the file system survives.
 *
 *   before the write      entry "sending"     ─ if the process dies now, the outcome is unknown
 *   the answer is known   entry "ordered"/"done" with the ids, or no entry when EDIS refused it
 *   the answer was lost   entry "unknown"
 *   the engine has it     entry removed       ─ diff, read, update or delete saw the result in state
 *
 * The next create or update of the same resource reads its entry first: a known service id is resumed, a
 * known upgrade is not sent again, and an unknown outcome blocks the write until the user says what happened
 * (adoptKvmId, or `pulumi-edis orders forget|confirm`). Entries are keyed by the resource's identity
 * (project/stack/name, which the SDK passes as the input `__resourceKey`), one file per resource and kind,
 * written atomically (write, fsync, rename).
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { BillingCycle } from "./client/model";

export const DEFAULT_JOURNAL_DIR = ".pulumi-edis/journal";
/** The input by which the SDK names a resource for the journal; not an EDIS input, ignored by diff. */
export const RESOURCE_KEY = "__resourceKey";

export type JournalKind = "order" | "upgrade" | "hook";

interface EntryBase {
    key: string;
    hostname: string;
    /** When the write was sent (ISO time). */
    sentAt: string;
    /** What went wrong, for an unknown outcome. */
    problem?: string;
}

export interface OrderEntry extends EntryBase {
    kind: "order";
    state: "sending" | "unknown" | "ordered";
    /** The inputs the order was placed with (a resumed create returns what was really ordered). */
    inputs: Record<string, unknown>;
    serviceId?: number;
    orderId?: number;
    invoiceId?: number;
    invoicePaid?: boolean;
    locationId?: number;
}

export interface UpgradeEntry extends EntryBase {
    kind: "upgrade";
    state: "sending" | "unknown" | "done";
    serviceId: number;
    kvmId: string;
    fromPlanId: number;
    toPlanId: number;
    billingCycle: BillingCycle;
}

/** A traffic hook (hooks/set); `hostname` holds the KVM id. */
export interface HookEntry extends EntryBase {
    kind: "hook";
    state: "sending" | "unknown" | "done";
    kvmId: string;
    callbackUrl: string;
    triggerPercent: number;
    hookId?: number;
}

export type JournalEntry = OrderEntry | UpgradeEntry | HookEntry;

export class OrderJournal {
    constructor(readonly dir: string) {}

    read(key: string, kind: "order"): OrderEntry | undefined;
    read(key: string, kind: "upgrade"): UpgradeEntry | undefined;
    read(key: string, kind: "hook"): HookEntry | undefined;
    read(key: string, kind: JournalKind): JournalEntry | undefined {
        try {
            return JSON.parse(readFileSync(this.path(key, kind), "utf8")) as JournalEntry;
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
            throw new Error(`the order journal entry ${this.path(key, kind)} cannot be read (${(e as Error).message}); nothing was sent`);
        }
    }

    /** Writes an entry so that it is on disk, whole, before this returns. */
    write(entry: JournalEntry): void {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        const target = this.path(entry.key, entry.kind);
        const tmp = `${target}.${process.pid}.tmp`;
        const fd = openSync(tmp, "w", 0o600);
        try {
            writeSync(fd, `${JSON.stringify(entry, null, 2)}\n`);
            fsyncSync(fd);
        } finally {
            closeSync(fd);
        }
        renameSync(tmp, target);
        const dirFd = openSync(this.dir, "r");
        try {
            fsyncSync(dirFd);
        } finally {
            closeSync(dirFd);
        }
    }

    clear(key: string, kind: JournalKind): boolean {
        const path = this.path(key, kind);
        try {
            rmSync(path);
            return true;
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return false;
            throw e;
        }
    }

    list(): JournalEntry[] {
        let names: string[];
        try {
            names = readdirSync(this.dir);
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
            throw e;
        }
        return names.filter((n) => n.endsWith(".json")).map((n) => JSON.parse(readFileSync(join(this.dir, n), "utf8")) as JournalEntry);
    }

    private path(key: string, kind: JournalKind): string {
        return join(this.dir, `${encodeURIComponent(key)}.${kind}.json`);
    }
}

/** The command that resolves an entry, as the errors print it. */
export function resolveCommand(verb: "forget" | "confirm", key: string, dir: string): string {
    return `npx pulumi-edis orders ${verb} ${shellQuote(key)} --dir ${shellQuote(dir)}`;
}

/**
 * A word quoted for POSIX shells, so that a command printed for the user to paste means the same whatever a
 * resource, project or directory name holds: inside single quotes nothing is special (no `$(...)`, no backticks,
 * no `$VAR`), and a single quote itself is closed, escaped and reopened.
 */
export function shellQuote(word: string): string {
    return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A server is cancelled: its entries go with it (another server of the same resource keeps its own). */
export function forgetService(journal: OrderJournal, key: string, serviceId: number): void {
    if (journal.read(key, "order")?.serviceId === serviceId) journal.clear(key, "order");
    if (journal.read(key, "upgrade")?.serviceId === serviceId) journal.clear(key, "upgrade");
}

/**
 * The engine has the resource in state with these outputs: journal entries it makes redundant are removed.
 * Called from diff, read, update and delete; cheap (one stat when there is nothing to clear).
 */
export function settle(journal: OrderJournal, props: Record<string, unknown>): void {
    const key = props[RESOURCE_KEY];
    if (typeof key === "string" && props.hookId !== undefined) {
        const hook = journal.read(key, "hook");
        if (hook?.state === "done" && hook.hookId === props.hookId) journal.clear(key, "hook");
    }
    if (typeof key !== "string" || props.serviceId === undefined) return;
    const order = journal.read(key, "order");
    if (order?.state === "ordered" && order.serviceId === props.serviceId) journal.clear(key, "order");
    const upgrade = journal.read(key, "upgrade");
    if (upgrade?.state === "done" && upgrade.toPlanId === props.planId && upgrade.billingCycle === props.billingCycle) {
        journal.clear(key, "upgrade");
    }
}
