/**
 * Which resource holds each server, as this deployment's diffs, reads, creates and updates saw it: the engine diffs
 * every server before a delete, so two holders of one server, adopting one's own KVM or deleting another's are refused.
 * What is not diffed (`--target`, `destroy`, another stack): the journal's record.
 */
import { createHash } from "node:crypto";
import { OrderJournal, adoptionKey, resolveCommand, shellQuote } from "../journal";

export interface Holding {
    /** The holder's URN; undefined for a resource without one (a `KvmServer.get`, which only reads). */
    key?: string;
    serviceId?: number;
    kvmId?: string;
}

export class Holders {
    private readonly seen: Holding[] = [];

    /** A resource holds this server. `strict` (a diff, create or update: the program declares it): refused when another one does. */
    see(h: Holding, strict: boolean): void {
        if (h.serviceId === undefined && !h.kvmId) return;
        const other = this.otherHolder(h);
        if (strict && other && h.key !== undefined) throw twoHolders(h, other);
        if (h.key === undefined) return;
        const i = this.seen.findIndex((s) => s.key === h.key && sameServer(s, h));
        if (i >= 0) this.seen[i] = { ...this.seen[i], ...h };
        else this.seen.push(h);
    }

    /** Before and after an adoption: refused when any resource holds the server, this one included (a replacement's new half). */
    checkAdoption(key: string | undefined, kvmId: string, serviceId?: number): void {
        const holder = this.seen.find((s) => sameServer(s, { kvmId, serviceId }));
        if (!holder) return;
        if (holder.key === key) {
            throw new Error(
                `${key} would be replaced by a resource that adopts the KVM it already is (${kvmId}): the old half's delete would ` +
                    `cancel the one server both halves are. Nothing was adopted or cancelled. Make the change without a replacement ` +
                    `(an adopted server's first plan, OS or add-on is recorded in place), or remove adoptKvmId first.`,
            );
        }
        throw twoHolders({ key, kvmId }, holder);
    }

    /** Before a cancel: another resource that holds the server, whose server the delete must not cancel. */
    otherHolder(h: Holding): Holding | undefined {
        return this.seen.find((s) => s.key !== h.key && sameServer(s, h));
    }
}

function sameServer(a: Holding, b: Holding): boolean {
    return (a.serviceId !== undefined && a.serviceId === b.serviceId) || (!!a.kvmId && !!b.kvmId && a.kvmId.toLowerCase() === b.kvmId.toLowerCase());
}

function describe(h: Holding): string {
    return [h.serviceId !== undefined ? `service ${h.serviceId}` : undefined, h.kvmId].filter(Boolean).join(", ");
}

function twoHolders(h: Holding, other: Holding): Error {
    return new Error(
        `${h.key} and ${other.key} both hold ${describe({ ...other, ...h })}: removing either would cancel the server the other ` +
            `still declares, so ${h.key} is refused and nothing is cancelled. Keep one: remove adoptKvmId or the resource from the ` +
            `program, and let a resource that is in the stack's state go without a cancel with \`${stateDelete(h.key)}\`.`,
    );
}

export function stateDelete(key: string | undefined): string {
    return key ? `pulumi state delete ${shellQuote(key)}` : "pulumi state delete <urn> (the URN from `pulumi stack --show-urns`)";
}

export function heldElsewhereError(name: string, key: string | undefined, holder: Holding, forgetRecord?: string): Error {
    return new Error(
        `${name} is also held by ${holder.key}; it was not cancelled. To let this resource go and leave the server to ` +
            `${holder.key}, run \`${stateDelete(key)}\`. To cancel the server, remove the other resource first` +
            (forgetRecord
                ? `; if \`pulumi stack --show-urns\` in its stack lists none of them any more (let go with \`pulumi state delete\`), run \`${forgetRecord}\`, then this again.`
                : "."),
    );
}

/** The output that carries the token of the server's holder record in the journal; kept across updates, it follows renames. */
export const HOLDER_TOKEN = "__adoption";

/** How the holder record names a resource without a URN (one made by a program without the SDK). */
const NO_URN = "a KvmServer without a URN";

export function holderToken(key: string | undefined, serviceId: number): string {
    return createHash("sha256").update(`${key ?? NO_URN}\n${serviceId}`).digest("hex").slice(0, 16);
}

/**
 * Records that this resource holds the server; returns the token state keeps (URN and service, digested: a create run
 * twice, resumed and by a killed deployment's host, records the same). Adopting a recorded server keeps every earlier
 * holder, itself included (the URN may be another stack's): the user says they let go.
 */
export async function recordHolder(journal: OrderJournal, key: string | undefined, outs: { serviceId: number; kvmId?: string; hostname: string }, adopting: boolean): Promise<string> {
    const holder = key ?? NO_URN;
    const token = holderToken(key, outs.serviceId);
    const now = await journal.read(adoptionKey(outs.serviceId), "adoption");
    if (!adopting && now?.holder === holder && now.token === token) return token;
    const before = now ? [...(now.previous ?? []), { holder: now.holder, token: now.token }] : [];
    const previous = before.filter((p, i) => before.findIndex((q) => q.token === p.token) === i);
    await journal.write({
        kind: "adoption",
        state: "held",
        key: adoptionKey(outs.serviceId),
        hostname: outs.hostname,
        sentAt: new Date().toISOString(),
        serviceId: outs.serviceId,
        kvmId: outs.kvmId ?? "",
        holder,
        token,
        ...(previous.length ? { previous } : {}),
    });
    return token;
}

/** Before a cancel: refused when the journal records another holder, or earlier ones that may still be in a state. */
export async function checkCancelHolder(journal: OrderJournal, name: string, key: string | undefined, serviceId: number, token: unknown): Promise<void> {
    const record = await journal.read(adoptionKey(serviceId), "adoption");
    if (!record) return;
    const forget = resolveCommand("forget", adoptionKey(serviceId), journal, "adoption");
    // Every holder the record names but this one: the forget it prints clears them all.
    const others = [...new Set([record, ...(record.previous ?? [])].filter((h) => h.token !== token).map((h) => h.holder))];
    if (record.token !== token) throw heldElsewhereError(name, key, { key: others.join(", ") }, forget);
    if (!record.previous?.length) return;
    const holders = [...new Set(record.previous.map((p) => p.holder))];
    // The same URN: this resource declared before (let go with `pulumi state delete`), or a stack of its name elsewhere.
    const self = holders.includes(record.holder) ? ` (${record.holder} is this resource's URN: an earlier declaration of it, or a stack of the same name in another backend or organization)` : "";
    throw new Error(
        `${name} was adopted by this resource from ${holders.join(", ")}${self}, which may still hold it in a stack's state; it was not cancelled. ` +
            `If none of them holds service ${serviceId} now (each was let go with \`pulumi state delete\`, or holds another ` +
            `server: \`pulumi stack export\` in its stack shows its id), run \`${forget}\`, then this again. To let this resource ` +
            `go instead, run \`${stateDelete(key)}\`.`,
    );
}

/** An import is refused when the journal records another holder: each would cancel the server. */
export async function checkImportHolder(journal: OrderJournal, name: string, key: string, serviceId: number): Promise<void> {
    const record = await journal.read(adoptionKey(serviceId), "adoption");
    if (!record || record.holder === key) return;
    throw new Error(
        `${name} is held by ${record.holder} (the order journal's holder record), so ${key} may not take it too: either's delete would ` +
            `cancel the server the other still holds. Nothing was imported. To move it here, let the holder go with ` +
            `\`${stateDelete(record.holder === NO_URN ? undefined : record.holder)}\` in its stack, run \`${resolveCommand("forget", adoptionKey(serviceId), journal, "adoption")}\`, then import again.`,
    );
}

