/**
 * The order journal: a record on disk of every paid or non-repeatable write (add/order, add/upgrade, and
 * hooks/set, which adds a traffic hook each time and cannot be listed) that survives a crash of the provider
 * host or of the whole deployment, wherever the file system survives. The writes themselves go through one
 * path, paidWrite.ts; this module is the record.
 *
 *   before the write      entry "sending"     ─ claimed exclusively: a second deployment finds it and stops
 *   the answer is known   entry "ordered"/"done" with the ids, or no entry when EDIS refused it
 *   the answer was lost   entry "unknown"
 *   create returned       entry "created"     ─ the engine had it; kept until its state shows it
 *   the engine has it     entry removed       ─ diff, read, update or delete saw the result in state
 *
 * **Identity.** An entry belongs to one resource: it is keyed by the resource's URN (project, stack, parent
 * types, type and name; the SDK passes it as the input `__resourceKey`), so two resources of one name under two
 * components never share an entry. A resource renamed with an alias finds its entries under the alias's URN
 * (the SDK passes `__resourceAliases`) and takes them over. An entry that names the same project, parents and name
 * under another stack (a renamed stack, or another stack in the same directory) is never taken silently: an
 * unresolved one stops the write with the `orders move` command that claims it. Entries are tied to the account
 * and endpoint they were written for (a digest, never the e-mail itself); another account's entry is passed over.
 *
 * One file per resource and kind, named by a digest of the key (case-insensitive file systems cannot merge two
 * keys), written atomically (write, fsync, rename); the "sending" entry is created exclusively.
 */
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { BillingCycle } from "./client/model";

export const DEFAULT_JOURNAL_DIR = ".pulumi-edis/journal";
/** The input by which the SDK names a resource for the journal (its URN); not an EDIS input, ignored by diff. */
export const RESOURCE_KEY = "__resourceKey";
/** The URNs the resource had before (its aliases), for the journal; not an EDIS input, ignored by diff. */
export const RESOURCE_ALIASES = "__resourceAliases";
/** The KVM ids the program's other servers hold, passed to an adopting server; ignored by diff, never stored. */
export const HELD_KVM_IDS = "__heldKvmIds";

export type JournalKind = "order" | "upgrade" | "hook" | "extra" | "adoption";

interface EntryBase {
    key: string;
    hostname: string;
    /** When the write was sent (ISO time). */
    sentAt: string;
    /** What went wrong, for an unknown outcome. */
    problem?: string;
    /** The account and endpoint the write was sent to (accountTag); absent in entries of older versions. */
    account?: string;
    /** Resources (URNs) that found this entry under another stack or an older key: what `orders move` may hand it to. */
    claimants?: string[];
}

export interface OrderEntry extends EntryBase {
    kind: "order";
    state: "sending" | "unknown" | "ordered" | "created";
    /** The inputs the order was placed with (a resumed create returns what was really ordered). */
    inputs: Record<string, unknown>;
    serviceId?: number;
    orderId?: number;
    invoiceId?: number;
    invoicePaid?: boolean;
    locationId?: number;
    /** The KVM, once the create returned ("created"). */
    kvmId?: string;
    /** For a replacement: the server being replaced, which the user must not adopt as the new one. */
    replacing?: { serviceId: number; kvmId?: string };
    /** An order placed for several resources at once (`edis:batchOrders`): this one's place in it. */
    batch?: OrderBatchInfo;
}

/** One add/order for several resources: every member's entry carries it, so each finds the others. */
export interface OrderBatchInfo {
    /** Hex id of the batch, shared by its members' entries; `orders forget --batch <id>` resolves them all. */
    id: string;
    /** This member's item in the order (its service id is the answer's id at the same place). */
    index: number;
    /** The members' host names, in item order. */
    hostnames: string[];
}

/** Services an order answer named beyond the one the resource holds: billed, and in no state. Never settled. */
export interface ExtraEntry extends EntryBase {
    kind: "extra";
    state: "unclaimed";
    orderId?: number;
    serviceIds: number[];
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
    /** The rest of the hook's inputs, as a digest: a journalled hook is reused only for the same inputs. */
    inputsDigest?: string;
    hookId?: number;
}

/**
 * A server this resource adopted (adoptKvmId). Kept as long as the resource holds it: a delete of any other
 * resource that still names the same service (removed in the same `pulumi up` that adopts it under a new name)
 * then leaves the server running instead of cancelling the server the adopter holds.
 */
export interface AdoptionEntry extends EntryBase {
    kind: "adoption";
    state: "held";
    serviceId: number;
    kvmId: string;
}

export type JournalEntry = OrderEntry | UpgradeEntry | HookEntry | ExtraEntry | AdoptionEntry;

/** The account and endpoint an entry belongs to, as a digest: the e-mail never reaches the journal. */
export function accountTag(email: string | undefined, baseUrl: string): string {
    return createHash("sha256").update(`${baseUrl.replace(/\/+$/, "").toLowerCase()}\n${(email ?? "").trim().toLowerCase()}`).digest("hex").slice(0, 16);
}

/** An entry of another project/stack layout or an older version, that stops a write until the user claims it. */
export class JournalClaimError extends Error {
    constructor(message: string) {
        super(message);
        this.name = "JournalClaimError";
    }
}

export class OrderJournal {
    constructor(readonly dir: string) {}

    read(key: string, kind: "order"): OrderEntry | undefined;
    read(key: string, kind: "upgrade"): UpgradeEntry | undefined;
    read(key: string, kind: "hook"): HookEntry | undefined;
    read(key: string, kind: "extra"): ExtraEntry | undefined;
    read(key: string, kind: "adoption"): AdoptionEntry | undefined;
    read(key: string, kind: JournalKind): JournalEntry | undefined {
        for (const path of [this.path(key, kind), this.legacyPath(key, kind)]) {
            try {
                return JSON.parse(readFileSync(path, "utf8")) as JournalEntry;
            } catch (e) {
                if ((e as NodeJS.ErrnoException).code === "ENOENT") continue;
                throw new Error(`the order journal entry ${path} cannot be read (${(e as Error).message}); nothing was sent`);
            }
        }
        return undefined;
    }

    /** Writes an entry so that it is on disk, whole, before this returns. */
    write(entry: JournalEntry): void {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        const target = this.path(entry.key, entry.kind);
        const tmp = `${target}.${process.pid}.tmp`;
        this.writeFile(tmp, entry);
        renameSync(tmp, target);
        this.syncDir();
    }

    clear(key: string, kind: JournalKind): boolean {
        let removed = false;
        for (const path of [this.path(key, kind), this.legacyPath(key, kind)]) {
            try {
                rmSync(path);
                removed = true;
            } catch (e) {
                if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
            }
        }
        return removed;
    }

    list(): JournalEntry[] {
        let names: string[];
        try {
            names = readdirSync(this.dir);
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
            throw e;
        }
        return names
            .filter((n) => n.endsWith(".json"))
            .flatMap((n) => {
                try {
                    return [JSON.parse(readFileSync(join(this.dir, n), "utf8")) as JournalEntry];
                } catch {
                    return []; // removed meanwhile, or half of an older version's write
                }
            });
    }

    /**
     * Writes a "sending" entry only if none exists: of two deployments that both found no entry, one claims the
     * write and the other stops here (a hard link is atomic and fails when the name exists, on every file system).
     */
    claim(entry: JournalEntry): void {
        mkdirSync(this.dir, { recursive: true, mode: 0o700 });
        const target = this.path(entry.key, entry.kind);
        const tmp = `${target}.${process.pid}.${Date.now()}.claim`;
        this.writeFile(tmp, entry);
        try {
            linkSync(tmp, target);
        } catch (e) {
            if ((e as NodeJS.ErrnoException).code === "EEXIST") {
                throw new JournalClaimError(
                    `another deployment is sending the same ${entry.kind} for ${entry.key} (its entry appeared in ${this.dir} a moment ago); ` +
                        `nothing was sent. Let that deployment finish, then run \`pulumi up\` again.`,
                );
            }
            throw e;
        } finally {
            rmSync(tmp, { force: true });
        }
        this.syncDir();
    }

    /** Moves every entry of one resource to another key (an alias, a renamed stack). Returns what moved. */
    move(from: string, to: string): JournalEntry[] {
        const moved: JournalEntry[] = [];
        for (const kind of ["order", "upgrade", "hook", "extra", "adoption"] as const) {
            const entry = this.read(from, kind as "order") as JournalEntry | undefined;
            if (!entry) continue;
            if (this.read(to, kind as "order")) throw new Error(`${to} already has a ${kind} entry in ${this.dir}; nothing was moved`);
            this.write({ ...entry, key: to });
            this.clear(from, kind);
            moved.push({ ...entry, key: to });
        }
        return moved;
    }

    private path(key: string, kind: JournalKind): string {
        // A digest, not the key: keys differing only in case stay apart on case-insensitive file systems.
        return join(this.dir, `${createHash("sha256").update(key).digest("hex").slice(0, 40)}.${kind}.json`);
    }

    /** Where versions before the URN key kept an entry ("project/stack/name", URI-encoded): read, moved and cleared, never written. */
    private legacyPath(key: string, kind: JournalKind): string {
        return join(this.dir, `${encodeURIComponent(key)}.${kind}.json`);
    }

    private writeFile(path: string, entry: JournalEntry): void {
        const fd = openSync(path, "w", 0o600);
        try {
            writeSync(fd, `${JSON.stringify(entry, null, 2)}\n`);
            fsyncSync(fd);
        } finally {
            closeSync(fd);
        }
    }

    private syncDir(): void {
        const dirFd = openSync(this.dir, "r");
        try {
            fsyncSync(dirFd);
        } finally {
            closeSync(dirFd);
        }
    }
}

/**
 * The id by which a printed command names a resource's entries: hex, so that the command is safe to paste and
 * to quote in any text whatever the resource's name holds (a name may hold `$(...)`, quotes or backticks, and an
 * error shows commands between backticks). The CLI finds the key (the URN) by it, and prints the key back.
 */
export function entryId(key: string): string {
    return createHash("sha256").update(key).digest("hex").slice(0, 16);
}

/** The command that resolves one entry (of one kind: forgetting an order never forgets a hook or extra services), as the errors print it. */
export function resolveCommand(verb: "forget" | "confirm", key: string, dir: string, kind: JournalKind): string {
    return `npx pulumi-edis orders ${verb} ${entryId(key)} --kind ${kind} --dir ${shellQuote(dir)}`;
}

/** The command that forgets an order entry whose outcome is unknown: for a batched order, every member's at once. */
export function forgetOrderCommand(entry: Pick<OrderEntry, "key" | "batch">, dir: string): string {
    if (entry.batch) return `npx pulumi-edis orders forget --batch ${entry.batch.id} --dir ${shellQuote(dir)}`;
    return resolveCommand("forget", entry.key, dir, "order");
}

/** The command that hands one resource's entries to another key (a renamed stack, an older version's key). */
export function moveCommand(from: string, to: string, dir: string): string {
    return `npx pulumi-edis orders move ${entryId(from)} ${entryId(to)} --dir ${shellQuote(dir)}`;
}

/**
 * A word quoted for POSIX shells, so that a command printed for the user to paste means the same whatever a
 * resource, project or directory name holds: inside single quotes nothing is special (no `$(...)`, no backticks,
 * no `$VAR`), and a single quote itself is closed, escaped and reopened.
 */
export function shellQuote(word: string): string {
    return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Who a write is for: the resource's URN, the URNs it had (aliases), and the account it is sent to. */
export interface Identity {
    key: string;
    aliases: string[];
    account: string;
}

/** The identity of a resource from its inputs or stored outputs; undefined without a key (a `get`, or no SDK). */
export function identityOf(props: Record<string, unknown>, account: string): Identity | undefined {
    const key = props[RESOURCE_KEY];
    if (typeof key !== "string") return undefined;
    const aliases = Array.isArray(props[RESOURCE_ALIASES]) ? (props[RESOURCE_ALIASES] as unknown[]).filter((a): a is string => typeof a === "string" && a !== key) : [];
    return { key, aliases, account };
}

/** A URN's parts; undefined for a key that is not a URN (an older version's "project/stack/name"). */
function urnParts(key: string): { stack: string; project: string; typePath: string; name: string } | undefined {
    const m = /^urn:pulumi:(.*?)::(.*?)::(.*?)::(.*)$/s.exec(key);
    return m ? { stack: m[1], project: m[2], typePath: m[3], name: m[4] } : undefined;
}

/** Whether `other` may be this resource under another stack name, or under an older version's key. */
function sameResourceElsewhere(key: string, other: string): boolean {
    const me = urnParts(key);
    if (!me || other === key) return false;
    const them = urnParts(other);
    if (them) return them.project === me.project && them.typePath === me.typePath && them.name === me.name && them.stack !== me.stack;
    const legacy = other.split("/");
    return legacy.length >= 3 && legacy[0] === me.project && legacy.slice(2).join("/") === me.name;
}

/**
 * Whether an entry may record a write that no stack's state holds. A "created" order counts: the program settles
 * an entry the moment the engine has saved its resource (settleRecorded), so one that is still here was most
 * likely never saved (an engine that died after the provider answered). A finished plan change and an adoption
 * belong to a resource in state.
 */
function unresolved(entry: JournalEntry): boolean {
    if (entry.kind === "adoption") return false;
    return !(entry.kind === "upgrade" && entry.state === "done");
}

/**
 * The entry of `kind` that belongs to this resource, found by its identity: its own; else one under an alias,
 * which it takes over. Another account's or endpoint's entry is passed over with a note. An unresolved entry of
 * the same project, parents and name under another stack (or an older version's key) stops the write: it may be
 * this resource's before a stack rename, or another stack's in the same directory, and only the user can say.
 */
export function entryFor<K extends JournalKind>(
    journal: OrderJournal,
    id: Identity,
    kind: K,
    log: (line: string) => void,
): Extract<JournalEntry, { kind: K }> | undefined {
    const mine = (e: JournalEntry | undefined): e is Extract<JournalEntry, { kind: K }> => {
        if (!e) return false;
        if (e.account === undefined || e.account === id.account) return true;
        log(`note: the order journal has a ${e.kind} entry for ${e.key} written for another EDIS account or endpoint; it is left alone (kept, not resumed)`);
        return false;
    };
    const own = journal.read(id.key, kind as "order") as JournalEntry | undefined;
    if (mine(own)) return own;
    if (own) {
        // Filed under a key of its own account, so that this resource's write can be claimed; `orders list` shows it.
        journal.write({ ...own, key: `${own.key}@${own.account}` });
        journal.clear(own.key, own.kind);
    }
    for (const alias of id.aliases) {
        const old = journal.read(alias, kind as "order") as JournalEntry | undefined;
        if (!mine(old)) continue;
        journal.move(alias, id.key);
        log(`the order journal's entries of ${alias} now belong to ${id.key} (its alias)`);
        return journal.read(id.key, kind as "order") as Extract<JournalEntry, { kind: K }>;
    }
    const elsewhere = journal.list().find((e) => e.kind === kind && unresolved(e) && sameResourceElsewhere(id.key, e.key) && (e.account ?? id.account) === id.account);
    if (elsewhere) {
        // The printed `orders move` names both sides by id: the entry remembers who may claim it.
        if (!elsewhere.claimants?.includes(id.key)) journal.write({ ...elsewhere, claimants: [...(elsewhere.claimants ?? []), id.key] });
        const service = "serviceId" in elsewhere && elsewhere.serviceId !== undefined ? ` (service ${elsewhere.serviceId})` : "";
        throw new JournalClaimError(
            `the order journal holds an unfinished ${elsewhere.kind} for ${elsewhere.key}${service}, sent ${elsewhere.sentAt}: the same ` +
                `resource name in another stack, or in this stack before it was renamed. Nothing was sent, so that it cannot be paid twice. ` +
                `If this stack was renamed from that one, run \`${moveCommand(elsewhere.key, id.key, journal.dir)}\` and then \`pulumi up\`: ` +
                `what was sent is resumed, not sent again. If that stack still exists, run \`pulumi up\` there first: it finishes the write ` +
                `and clears the entry.`,
        );
    }
    return undefined;
}

/**
 * The program's side of settling (sdk/): the engine answers a resource's registration only after it has saved the
 * resource in the stack's checkpoint, so once the program holds the resource's id, the entry that recorded the
 * write that made it is redundant, and is removed at once rather than at the next diff (where another stack in the
 * same directory could meanwhile take it for its own).
 */
export function settleRecorded(journal: OrderJournal, key: string, kind: "order" | "hook", id: number): void {
    const entry = journal.read(key, kind as "order") as OrderEntry | HookEntry | undefined;
    if (!entry) return;
    const made = entry.kind === "order" ? entry.serviceId : entry.hookId;
    if (made === id && (entry.state === "ordered" || entry.state === "created" || entry.state === "done")) journal.clear(key, kind);
}

/** A server is cancelled: its entries go with it (another server of the same resource keeps its own). */
export function forgetService(journal: OrderJournal, key: string, serviceId: number): void {
    if (journal.read(key, "order")?.serviceId === serviceId) journal.clear(key, "order");
    if (journal.read(key, "upgrade")?.serviceId === serviceId) journal.clear(key, "upgrade");
    if (journal.read(key, "adoption")?.serviceId === serviceId) journal.clear(key, "adoption");
}

/** Another resource that adopted this service and holds it (see AdoptionEntry); undefined when none does. */
export function adoptedElsewhere(journal: OrderJournal, key: string | undefined, serviceId: number): AdoptionEntry | undefined {
    return journal.list().find((e): e is AdoptionEntry => e.kind === "adoption" && e.serviceId === serviceId && e.key !== key);
}

/**
 * The engine has the resource in state with these outputs: journal entries it makes redundant are removed, and
 * what the journal holds that the state does not (a replacement's order whose deployment stopped, services an
 * order named beyond the one held) is said again, on every diff and read, until the user resolves it.
 * Called from diff, read, update and delete; cheap (a few stats when there is nothing to clear).
 */
export function settle(journal: OrderJournal, props: Record<string, unknown>, log: (line: string) => void = () => undefined): void {
    const key = props[RESOURCE_KEY];
    if (typeof key === "string" && props.hookId !== undefined) {
        const hook = journal.read(key, "hook");
        if (hook?.state === "done" && hook.hookId === props.hookId) journal.clear(key, "hook");
    }
    if (typeof key !== "string" || props.serviceId === undefined) return;
    const order = journal.read(key, "order");
    if ((order?.state === "ordered" || order?.state === "created") && order.serviceId === props.serviceId) journal.clear(key, "order");
    // A replacement's new half that the engine saved was settled by the program at once: an entry still here names
    // a server that no state holds.
    else if ((order?.state === "ordered" || order?.state === "created") && order.serviceId !== undefined && order.serviceId !== props.serviceId) {
        log(
            `warning: ${key} holds service ${String(props.serviceId)}, but the order journal records service ${order.serviceId} ` +
                `(order ${order.orderId ?? "?"}, ${order.hostname}, sent ${order.sentAt}) ordered for it by a deployment that did not finish ` +
                `(a replacement, or a create, that stopped). That server may be billed outside any state: adopt it with adoptKvmId on a ` +
                `resource, or cancel it in the EDIS client area; then run \`${resolveCommand("forget", key, journal.dir, "order")}\`.`,
        );
    }
    const extra = journal.read(key, "extra");
    if (extra) {
        log(
            `warning: order ${extra.orderId ?? "?"} for ${key} also named service(s) ${extra.serviceIds.join(", ")}, which no resource holds and ` +
                `which may be billed: adopt each with adoptKvmId on a resource, or cancel it in the EDIS client area; then run ` +
                `\`${resolveCommand("forget", key, journal.dir, "extra")}\`.`,
        );
    }
    const upgrade = journal.read(key, "upgrade");
    if (upgrade?.state === "done" && upgrade.serviceId === props.serviceId) {
        if (upgrade.toPlanId === props.planId && upgrade.billingCycle === props.billingCycle) journal.clear(key, "upgrade");
        else {
            // Made at EDIS, then the update failed and the program went back: EDIS bills the new plan, state shows the old.
            log(
                `warning: service ${upgrade.serviceId} was changed at EDIS to plan ${upgrade.toPlanId}, ${upgrade.billingCycle} at ${upgrade.sentAt} ` +
                    `(order journal), but the stack's state records plan ${String(props.planId)}, ${String(props.billingCycle)}: declare that plan ` +
                    `to record it (nothing is sent again), or check the service in the EDIS client area.`,
            );
        }
    }
}
