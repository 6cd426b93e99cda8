/** A secret input's salted scrypt digest, so diff sees a change: slow against brute force, a secret output. */
import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";

const N = 16_384;
const R = 8;
const P = 1;
const LENGTH = 32;

export function digestSecret(secret: string): string {
    const salt = randomBytes(16);
    return `scrypt:${N}:${R}:${P}:${salt.toString("base64")}:${scryptSync(secret, salt, LENGTH, { N, r: R, p: P }).toString("base64")}`;
}

export function matchesDigest(secret: string, digest: unknown): boolean {
    if (typeof digest !== "string") return false;
    const [scheme, n, r, p, salt, hash] = digest.split(":");
    if (scheme !== "scrypt" || !salt || !hash) return false;
    const expected = Buffer.from(hash, "base64");
    const actual = scryptSync(secret, Buffer.from(salt, "base64"), expected.length, { N: Number(n), r: Number(r), p: Number(p) });
    return actual.length === expected.length && timingSafeEqual(actual, expected);
}
