/**
 * The order journal: a crash-surviving record, keyed by URN, of every paid or non-repeatable write (add/order,
 * add/upgrade, hooks/set; sent through paidWrite.ts), in a directory or S3 (`edis:journalUrl`). Atomic steps: "sending"
 * (claimed exclusively: a second deployment stops), then "ordered"/"done" with the ids (no entry if EDIS refused) or
 * "unknown" (answer lost); "created" once create returned, kept until state has it; removed conditionally (see clear).
 */
import { createHash, randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { join } from "node:path";
import { BillingCycle } from "../client/model";
import { withhold } from "../client/withhold";
import { FileJournalStore, JournalConflictError, JournalStore, JournalStoreError, shellQuote } from "./store";

export { DEFAULT_JOURNAL_DIR, journalStoreAt, parseJournalUrl } from "./location";
export * from "./store";

/** The input by which the SDK names a resource for the journal (its URN); not an EDIS input, ignored by diff. */
export const RESOURCE_KEY = "__resourceKey";
/** The URNs the resource had before (its aliases), for the journal; not an EDIS input, ignored by diff. */
export const RESOURCE_ALIASES = "__resourceAliases";

export type JournalKind = "order" | "upgrade" | "hook" | "extra" | "adoption";

interface EntryBase {
    key: string;
    hostname: string;
    sentAt: string;
    problem?: string;
    writer?: string;
    /** The engine's provider resource that wrote it, when the door is told (the plugin): see savedByAnotherStack. */
    provider?: EngineProvider;
}

/** A provider resource as the engine names it in Configure: its id survives `pulumi stack rename`; another stack's provider has another. */
export interface EngineProvider {
    urn: string;
    id: string;
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
    kvmId?: string;
    /** For a replacement: the server being replaced, which the user must not adopt as the new one. */
    replacing?: { serviceId: number; kvmId?: string };
    batch?: OrderBatchInfo;
}

/** One add/order for several resources: every member's entry carries it, so each finds the others. */
export interface OrderBatchInfo {
    /** Hex id of the batch, shared by its members' entries; `orders forget --batch <id>` resolves them all. */
    id: string;
    /** This member's item in the order (its service id is the answer's id at the same place). */
    index: number;
    hostnames: string[];
}

/** Services an order answer named beyond the one the resource holds: billed, and in no state. Never settled. */
export interface ExtraEntry extends EntryBase {
    kind: "extra";
    state: "unclaimed";
    orderIds: number[];
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

/** A server's holder (key `service:<id>`): only a delete carrying its token may cancel the server (kvm/holders.ts). */
export interface AdoptionEntry extends EntryBase {
    kind: "adoption";
    state: "held";
    serviceId: number;
    kvmId: string;
    holder: string;
    token: string;
    /** The holders before an adoption took the server over: each may still be in a stack's state. */
    previous?: Array<{ holder: string; token: string }>;
}

export type JournalEntry = OrderEntry | UpgradeEntry | HookEntry | ExtraEntry | AdoptionEntry;

export function adoptionKey(serviceId: number): string {
    return `service:${serviceId}`;
}

/** An entry of the same resource under another stack, that stops a write until the user claims it. */
export class JournalClaimError extends Error {
    override name = "JournalClaimError";
}

/**
 * Which deployment writes an entry (machine, process, CI job), named to another deployment that finds it. Unique to this
 * process: a container's host name and pid recur across runs, and an entry this process wrote is the only one it may pass.
 */
export const WRITER = [
    `${hostname()} pid ${process.pid} (${randomBytes(4).toString("hex")})`,
    process.env.GITHUB_RUN_ID ? `GitHub Actions run ${process.env.GITHUB_RUN_ID}` : undefined,
    process.env.CI_JOB_ID ? `GitLab job ${process.env.CI_JOB_ID}` : undefined,
].filter(Boolean).join(", ");

/** Writes act at the version last seen; removal writes a tombstone, which a writer at an old version cannot undo. */
export class OrderJournal {
    readonly store: JournalStore;
    private readonly versions = new Map<string, string | null>();
    /** The objects last seen as tombstones: a claim replaces them at this version. */
    private readonly removedAt = new Map<string, string>();
    /** The ids the entry last seen of each object holds, which no write may drop (idsOf). */
    private readonly held = new Map<string, string[]>();

    constructor(store: JournalStore | string) {
        this.store = typeof store === "string" ? new FileJournalStore(store) : store;
    }

    get dir(): string {
        return this.store.location;
    }

    get cliOption(): string {
        return this.store.cliOption;
    }

    async read<K extends JournalKind>(key: string, kind: K): Promise<Extract<JournalEntry, { kind: K }> | undefined> {
        return (await this.readNamed(this.nameOf(key, kind))) as Extract<JournalEntry, { kind: K }> | undefined;
    }

    /** Writes an entry at the version last seen; a write that would drop an id the old entry holds is refused. */
    async write(entry: JournalEntry): Promise<void> {
        const name = this.nameOf(entry.key, entry.kind);
        const body = serialize(entry);
        let seen = this.versions.get(name);
        if (seen === undefined) {
            const now = await this.store.get(name);
            seen = now ? now.version : null;
            this.held.set(name, now && !isTombstone(now.body) ? idsOf(JSON.parse(now.body) as JournalEntry) : []);
        }
        const lost = (this.held.get(name) ?? []).filter((id) => !idsOf(entry).includes(id));
        if (lost.length) {
            throw new JournalStoreError(`the order journal's ${entry.kind} entry of ${entry.key} holds ${lost.join(", ")}, which a write would drop; it was kept as it is`);
        }
        this.wrote(name, seen === null ? await this.store.create(name, body) : await this.store.replace(name, body, seen), entry);
    }

    /** Writes a "sending" entry only if none exists (a tombstone counts as none): of two deployments, the second stops here. */
    async claim(entry: JournalEntry): Promise<void> {
        const name = this.nameOf(entry.key, entry.kind);
        const body = serialize(entry);
        try {
            let removed = this.removedAt.get(name);
            if (removed === undefined) {
                try {
                    return this.wrote(name, await this.store.create(name, body), entry);
                } catch (e) {
                    if (!(e instanceof JournalConflictError)) throw e;
                    // A tombstone is no entry, and is claimed at its version.
                    if ((await this.readNamed(name)) !== undefined) throw e;
                    removed = this.removedAt.get(name);
                    if (removed === undefined) throw e;
                }
            }
            this.wrote(name, await this.store.replace(name, body, removed), entry);
        } catch (e) {
            if (!(e instanceof JournalConflictError)) throw e;
            const other = await this.readNamed(name).catch(() => undefined);
            const whose = other ? `its entry (${other.state}, sent ${other.sentAt}${other.writer ? ` by ${other.writer}` : ""})` : "its entry";
            throw new JournalClaimError(
                `another deployment is sending the same ${entry.kind} for ${entry.key}: ${whose} appeared in the order journal ` +
                    `${this.dir} a moment ago. Nothing was sent. Let that deployment finish, then run \`pulumi up\` again: it resumes ` +
                    `what the other one ${entry.kind === "order" ? "ordered" : "sent"} instead of sending it again.`,
            );
        }
    }

    private wrote(name: string, version: string, entry: JournalEntry): void {
        this.seen(name, version, false);
        this.held.set(name, idsOf(entry));
    }

    /** Removes an entry at the version last seen; one another deployment changed meanwhile is kept (JournalConflictError). */
    async clear(key: string, kind: JournalKind): Promise<void> {
        const name = this.nameOf(key, kind);
        let seen = this.versions.get(name);
        if (seen === undefined) {
            const now = await this.store.get(name);
            seen = now === undefined ? null : now.version;
            if (now && isTombstone(now.body)) this.removedAt.set(name, now.version);
        }
        if (seen === null || this.removedAt.get(name) === seen) {
            this.versions.set(name, seen);
            return;
        }
        this.seen(name, await this.store.replace(name, tombstone(), seen), true);
    }

    private seen(name: string, version: string, removed: boolean): void {
        this.versions.set(name, version);
        if (removed) this.held.set(name, []);
        if (removed) this.removedAt.set(name, version);
        else this.removedAt.delete(name);
    }

    /** Every entry in the store (the CLI's view: an entry that is not JSON is passed over here, and only here). */
    async list(): Promise<JournalEntry[]> {
        return this.readAll(await this.store.list(""), true);
    }

    async entriesOf(key: string): Promise<JournalEntry[]> {
        return (await this.readAll(await this.store.list(`${resourceDigest(key)}.${sha256(key, 40)}.`))).filter((e) => e.key === key);
    }

    /** The entries of the same resource under any stack: one listing. */
    async related(key: string): Promise<JournalEntry[]> {
        return this.readAll(await this.store.list(`${resourceDigest(key)}.`));
    }

    async ofKind(kind: JournalKind): Promise<JournalEntry[]> {
        return (await this.readAll((await this.store.list("")).filter((n) => n.endsWith(`.${kind}.json`)))).filter((e) => e.kind === kind);
    }

    /** Moves every entry of one resource to another key (an alias, a renamed stack). Returns what moved. */
    async move(from: string, to: string): Promise<JournalEntry[]> {
        const moved: JournalEntry[] = [];
        for (const kind of ["order", "upgrade", "hook", "extra", "adoption"] as const) {
            const entry = await this.read(from, kind);
            if (!entry) continue;
            if (await this.read(to, kind)) throw new Error(`${to} already has a ${kind} entry in ${this.dir}; nothing was moved`);
            await this.write({ ...entry, key: to });
            await this.clear(from, kind);
            moved.push({ ...entry, key: to });
        }
        return moved;
    }

    private async readNamed(name: string): Promise<JournalEntry | undefined> {
        const found = await this.store.get(name);
        if (!found) {
            this.versions.set(name, null);
            this.removedAt.delete(name);
            return undefined;
        }
        const removed = isTombstone(found.body);
        this.seen(name, found.version, removed);
        this.held.set(name, []);
        if (removed) return undefined;
        try {
            const entry = JSON.parse(found.body) as JournalEntry;
            this.held.set(name, idsOf(entry));
            return entry;
        } catch (e) {
            throw new UnparsableEntryError(`the order journal entry ${name} in ${this.dir} cannot be read (${(e as Error).message}); nothing was sent`);
        }
    }

    /** What cannot be read is an error, never "no entry", which would order or cancel on a guess (`tolerant`: CLI list only). */
    private async readAll(names: string[], tolerant = false): Promise<JournalEntry[]> {
        const entries = await Promise.all(
            [...new Set(names)].map((n) =>
                this.readNamed(n).catch((e) => {
                    if (tolerant && e instanceof UnparsableEntryError) return undefined;
                    throw e;
                }),
            ),
        );
        return entries.filter((e): e is JournalEntry => e !== undefined);
    }

    private nameOf(key: string, kind: JournalKind): string {
        return `${resourceDigest(key)}.${sha256(key, 40)}.${kind}.json`;
    }
}

function idsOf(entry: JournalEntry): string[] {
    const e = entry as { serviceId?: number; serviceIds?: number[]; orderId?: number; orderIds?: number[]; hookId?: number };
    return [
        ...[e.serviceId, ...(e.serviceIds ?? [])].filter((id) => id !== undefined).map((id) => `service ${id}`),
        ...[e.orderId, ...(e.orderIds ?? [])].filter((id) => id !== undefined).map((id) => `order ${id}`),
        ...(e.hookId !== undefined ? [`hook ${e.hookId}`] : []),
    ];
}

/** An entry whose body is not JSON (written by hand, or cut short on a full disk). */
class UnparsableEntryError extends JournalStoreError {}

function sha256(text: string, hexChars: number): string {
    return createHash("sha256").update(text).digest("hex").slice(0, hexChars);
}

/** The resource a key names whatever its stack and project (`pulumi stack rename` may move a stack to another project). */
function resourceDigest(key: string): string {
    const p = urnParts(key);
    return sha256(p ? `${p.typePath}::${p.name}` : key, 16);
}

function tombstone(): string {
    // Small on purpose: listings skip objects this small unread (s3Store.ts, TOMBSTONE_MAX_BYTES).
    return `${JSON.stringify({ removed: true, write: randomBytes(8).toString("hex") })}\n`;
}

function isTombstone(body: string): boolean {
    return /^\s*\{\s*"removed"\s*:\s*true\b/.test(body);
}

/** An entry's body, unique by the write's nonce: two deployments may write the same entry to the byte. */
function serialize(entry: JournalEntry): string {
    // `problem` quotes EDIS: withheld when it holds a credential (a shared bucket is read by many).
    const problem = entry.problem === undefined ? undefined : withhold(entry.problem, { scope: "composed" });
    return `${JSON.stringify({ ...entry, problem, writer: WRITER, write: randomBytes(8).toString("hex") }, null, 2)}\n`;
}

/** The hex id by which printed commands name a resource's entries: safe to paste and quote whatever the name holds. */
export function entryId(key: string): string {
    return sha256(key, 16);
}

/** The orders CLI by this provider's own path; never `npx pulumi-edis`, which may fetch whatever the registry has. */
export const ORDERS_CLI = `node ${shellQuote(join(__dirname, "..", "cli.js"))} orders`;

export type JournalPlace = { cliOption: string };

export function resolveCommand(verb: "forget" | "confirm", key: string, where: JournalPlace, kind: JournalKind): string {
    return `${ORDERS_CLI} ${verb} ${entryId(key)} --kind ${kind} ${where.cliOption}`;
}

/** The command that forgets an order entry whose outcome is unknown: for a batched order, every member's at once. */
export function forgetOrderCommand(entry: Pick<OrderEntry, "key" | "batch">, where: JournalPlace): string {
    if (entry.batch) return `${ORDERS_CLI} forget --batch ${entry.batch.id} ${where.cliOption}`;
    return resolveCommand("forget", entry.key, where, "order");
}

/** The command that hands one resource's entries to another key (a renamed stack); the target by its URN in base64url. */
export function moveCommand(from: string, to: string, where: JournalPlace): string {
    return `${ORDERS_CLI} move ${entryId(from)} ${URN64}${Buffer.from(to).toString("base64url")} ${where.cliOption}`;
}

export const URN64 = "urn64:";

/** Who a write is for: the resource's URN, and the URNs it had (aliases), when the door was told them (the engine never tells the plugin). */
export interface Identity {
    key: string;
    aliases: string[];
    provider?: EngineProvider;
}

/** The identity of a resource from its inputs or stored outputs; undefined without a key (a `get`, or no SDK). */
export function identityOf(props: Record<string, unknown>): Identity | undefined {
    const key = props[RESOURCE_KEY];
    if (typeof key !== "string") return undefined;
    const aliases = Array.isArray(props[RESOURCE_ALIASES]) ? (props[RESOURCE_ALIASES] as unknown[]) : [];
    return { key, aliases: aliases.filter((a): a is string => typeof a === "string" && a !== key) };
}

function urnParts(key: string): { stack: string; project: string; typePath: string; name: string } | undefined {
    const m = /^urn:pulumi:(.*?)::(.*?)::(.*?)::(.*)$/s.exec(key);
    return m ? { stack: m[1], project: m[2], typePath: m[3], name: m[4] } : undefined;
}

/** Whether `other` may be this resource under another stack or project: `orders move` hands entries only so, never to a mistyped target. */
export function sameResourceElsewhere(key: string, other: string): boolean {
    const me = urnParts(key);
    const them = urnParts(other);
    if (!me || !them || other === key) return false;
    return them.typePath === me.typePath && them.name === me.name;
}

/** Unfinished writes of other resources of this stack, project and type: a renamed resource's, whether or not it has an alias. */
export async function unfinishedBeside<K extends "order" | "hook">(
    journal: OrderJournal,
    key: string,
    kind: K,
): Promise<Array<Extract<JournalEntry, { kind: K }>>> {
    const me = urnParts(key);
    if (!me) return [];
    const type = (t: string) => t.split("$").pop();
    return (await journal.ofKind(kind)).filter((e): e is Extract<JournalEntry, { kind: K }> => {
        const them = urnParts(e.key);
        return e.key !== key && unresolved(e) && !!them && them.stack === me.stack && them.project === me.project && type(them.typePath) === type(me.typePath);
    });
}

/** Whether an entry may record a write no state holds ("created" and "done" too: the engine may die before its checkpoint). */
function unresolved(entry: JournalEntry): boolean {
    return entry.kind !== "adoption" && entry.state !== "unclaimed";
}

/**
 * A create returned (or a hook made) under a same-named provider with another id: another stack's, settled by its own next operation.
 * A renamed stack keeps its provider id (DiffConfig never replaces it): its entry blocks the write, as an unknown does.
 */
function savedByAnotherStack(entry: JournalEntry, id: Identity): boolean {
    const [theirs, ours] = [entry.provider, id.provider];
    return (entry.state === "created" || entry.state === "done") && !!theirs && !!ours && theirs.id !== ours.id && sameResourceElsewhere(ours.urn, theirs.urn);
}

function serviceOf(entry: JournalEntry): string | undefined {
    return "serviceId" in entry && entry.serviceId !== undefined ? `service ${entry.serviceId}` : undefined;
}

/** Another project's entry (a stack rename may change project) counts only for the same intent (host name, service). */
function sameLineage<E extends JournalEntry>(entry: E, id: Identity, sameIntent?: (entry: E) => boolean): boolean {
    return urnParts(entry.key)?.project === urnParts(id.key)?.project || !!sameIntent?.(entry);
}

/** This resource's entry of `kind`: its own or an alias's (taken over); one of it elsewhere, or of the same intent, stops the write. */
export async function entryFor<K extends JournalKind>(
    journal: OrderJournal,
    id: Identity,
    kind: K,
    log: (line: string) => void,
    sameIntent?: (entry: Extract<JournalEntry, { kind: K }>) => boolean,
): Promise<Extract<JournalEntry, { kind: K }> | undefined> {
    const own = await journal.read(id.key, kind);
    if (own) return own;
    for (const alias of id.aliases) {
        if (!(await journal.read(alias, kind))) continue;
        await journal.move(alias, id.key);
        log(`the order journal's entries of ${alias} now belong to ${id.key} (its alias)`);
        return journal.read(id.key, kind);
    }
    const others = (await journal.related(id.key)).filter(
        (e): e is Extract<JournalEntry, { kind: K }> =>
            e.kind === kind &&
            unresolved(e) &&
            sameResourceElsewhere(id.key, e.key) &&
            sameLineage(e as Extract<JournalEntry, { kind: K }>, id, sameIntent) &&
            // A plan change is of one service: another stack's change of another server is not this resource's.
            (kind !== "upgrade" || !sameIntent || sameIntent(e as Extract<JournalEntry, { kind: K }>)),
    );
    for (const e of others.filter((e) => savedByAnotherStack(e, id))) {
        const [what, remedy] =
            e.kind === "order"
                ? [serviceOf(e) ?? "an order", "it is billed outside any state: adopt it with adoptKvmId, or cancel it in the EDIS client area"]
                : ["a traffic hook", "remove it in the KVM portal if it should go"]; // plan changes record no provider
        log(
            `warning: the order journal records ${what} (${e.hostname}) made at ${e.sentAt} for ${e.key}, a stack with another provider, ` +
                `whose next \`pulumi up\` or \`pulumi preview\` settles it. If that stack no longer holds it, ${remedy}, then run ` +
                `\`${resolveCommand("forget", e.key, journal, kind)}\`.`,
        );
    }
    const elsewhere = others.find((e) => !savedByAnotherStack(e, id));
    if (elsewhere) {
        // Nothing is written to the entry found: it may be another deployment's, still sending.
        const service = serviceOf(elsewhere);
        throw new JournalClaimError(
            `the order journal holds an unfinished ${elsewhere.kind} for ${elsewhere.key}${service ? ` (${service})` : ""}, sent ${elsewhere.sentAt}: the same ` +
                `resource name in another stack or project, or in this stack before \`pulumi stack rename\`. Nothing was sent, so that it cannot be paid twice. ` +
                `If that stack still exists, run \`pulumi preview\` or \`pulumi up\` there first: it clears the entry, or finishes the write. If this stack was ` +
                `renamed from that one, run \`${moveCommand(elsewhere.key, id.key, journal)}\` and then \`pulumi up\`: what was sent is ` +
                `resumed, not sent again.`,
        );
    }
    // Aliases known or not (a rename without one, of a resource that never reached state): the same intent stops the write.
    if (!sameIntent || (kind !== "order" && kind !== "hook")) return undefined;
    const renamed = (await unfinishedBeside(journal, id.key, kind as "order" | "hook")).find(
        (e) => e.writer !== WRITER && sameIntent(e as Extract<JournalEntry, { kind: K }>),
    );
    if (renamed) {
        throw new JournalClaimError(
            `the order journal holds an unfinished ${renamed.kind} for ${renamed.key} (${[renamed.hostname, serviceOf(renamed)].filter(Boolean).join(", ")}), sent ${renamed.sentAt}: ` +
                `the same intent in this stack, perhaps this resource before a rename. Nothing was sent, so that it cannot be paid twice. ` +
                `If this resource was renamed, run \`pulumi up\` once under the old name (it records what was sent without sending it ` +
                `again), then rename it with the alias. If it is another resource, run \`pulumi up\` with that one first.`,
        );
    }
    return undefined;
}

/** Whether a plan change entry is the change to this plan and billing cycle. */
export function changedTo(entry: UpgradeEntry, planId: unknown, billingCycle: unknown): boolean {
    return entry.toPlanId === planId && entry.billingCycle === billingCycle;
}

/** Whether the engine saves its checkpoint after each step; under PULUMI_SKIP_CHECKPOINTS nothing is saved before the end. */
export function checkpointsSaved(): boolean {
    return !/^(1|true)$/i.test(process.env.PULUMI_SKIP_CHECKPOINTS ?? "");
}

/** A server is cancelled: its entries go with it (another server of the same resource keeps its own). */
export async function forgetService(journal: OrderJournal, key: string, serviceId: number): Promise<void> {
    for (const e of await journal.entriesOf(key)) {
        if ((e.kind === "order" || e.kind === "upgrade") && e.serviceId === serviceId) await journal.clear(key, e.kind);
    }
}

/** Clears entries the state makes redundant; warns on every diff and read about what the journal holds that state does not. */
export async function settle(journal: OrderJournal, props: Record<string, unknown>, log: (line: string) => void = () => undefined): Promise<void> {
    const key = props[RESOURCE_KEY];
    if (typeof key !== "string" || (props.hookId === undefined && props.serviceId === undefined)) return;
    const entries = await journal.entriesOf(key);
    const find = <K extends JournalKind>(kind: K) => entries.find((e): e is Extract<JournalEntry, { kind: K }> => e.kind === kind);
    if (props.hookId !== undefined) {
        const hook = find("hook");
        if (hook?.state === "done" && hook.hookId === props.hookId) await journal.clear(key, "hook");
    }
    if (props.serviceId === undefined) return;
    const order = find("order");
    if ((order?.state === "ordered" || order?.state === "created") && order.serviceId !== undefined) {
        if (order.serviceId === props.serviceId) await journal.clear(key, "order");
        // A saved replacement's new half was settled by the program: one still here names a server no state holds.
        else log(
            `warning: ${key} holds service ${String(props.serviceId)}, but the order journal records service ${order.serviceId} ` +
                `(order ${order.orderId ?? "?"}, ${order.hostname}, sent ${order.sentAt}) ordered for it by a deployment that did not finish ` +
                `(a replacement, or a create, that stopped). That server may be billed outside any state: adopt it with adoptKvmId on a ` +
                `resource, or cancel it in the EDIS client area; then run \`${resolveCommand("forget", key, journal, "order")}\`.`,
            );
    }
    const extra = find("extra");
    if (extra) {
        log(
            `warning: order ${extra.orderIds.join(", ") || "?"} for ${key} also named service(s) ${extra.serviceIds.join(", ")}, which no resource holds and ` +
                `which may be billed: look each up in the EDIS client area's services (an add-on billed as its own service has no KVM and ` +
                `cannot be adopted; a server can be adopted with adoptKvmId on a resource), or cancel it there; then run ` +
                `\`${resolveCommand("forget", key, journal, "extra")}\`.`,
        );
    }
    const upgrade = find("upgrade");
    if (upgrade?.state === "done" && upgrade.serviceId === props.serviceId) {
        if (changedTo(upgrade, props.planId, props.billingCycle)) await journal.clear(key, "upgrade");
        else {
            // The update failed after EDIS changed the plan: EDIS bills the new plan, state shows the old.
            log(
                `warning: service ${upgrade.serviceId} was changed at EDIS to plan ${upgrade.toPlanId}, ${upgrade.billingCycle} at ${upgrade.sentAt} ` +
                    `(order journal), but the stack's state records plan ${String(props.planId)}, ${String(props.billingCycle)}: declare that plan ` +
                    `to record it (nothing is sent again), or check the service in the EDIS client area.`,
            );
        }
    }
}
