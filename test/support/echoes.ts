// Made with the platform's own encoders, not the code under test; the real-CLI tests look for each form in all output.
const bytes = (s: string) => [...Buffer.from(s)];
const utf32 = (s: string, le: boolean) =>
    [...s].map((c) => Buffer.from(c.codePointAt(0)!.toString(16).padStart(8, "0"), "hex")).map((b) => (le ? b.reverse() : b).toString("latin1")).join("");

/** How a server may echo a secret. */
export const ECHOES: Record<string, (s: string) => string> = {
    "JSON string": (s) => JSON.stringify(s),
    "JSON inside JSON": (s) => JSON.stringify(JSON.stringify({ pw: s })),
    "JSON with \\u escapes": (s) => [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    "\\x escapes": (s) => bytes(s).map((b) => `\\x${b.toString(16).padStart(2, "0")}`).join(""),
    "PHP's addslashes": (s) => s.replace(/(['"\\])/g, "\\$1"),
    "SQL's doubled quote": (s) => s.replace(/'/g, "''"),
    "percent-encoded": encodeURIComponent,
    "percent-encoded twice": (s) => encodeURIComponent(encodeURIComponent(s)),
    "form-encoded": (s) => new URLSearchParams({ p: s }).toString().slice(2),
    "escape()": (s) => escape(s),
    "HTML numeric entities": (s) => [...s].map((c) => `&#${c.codePointAt(0)};`).join(""),
    "HTML hex entities": (s) => [...s].map((c) => `&#x${c.codePointAt(0)!.toString(16)};`).join(""),
    "HTML named entities, any case": (s) => {
        const named: Record<string, string> = { "&": "&amp;", "'": "&apos;", '"': "&QUOT;", ä: "&auml;", ö: "&ouml;", ß: "&szlig;", "ü": "&UUML;" };
        return [...s].map((c) => named[c] ?? c).join("");
    },
    "quoted-printable": (s) => bytes(s).map((b) => (b > 32 && b < 127 && b !== 61 ? String.fromCharCode(b) : `=${b.toString(16).toUpperCase().padStart(2, "0")}`)).join(""),
    base64: (s) => Buffer.from(s).toString("base64"),
    base64url: (s) => Buffer.from(s).toString("base64url"),
    "base64 in groups of 4": (s) => Buffer.from(s).toString("base64").replace(/(.{4})/g, "$1 "),
    "base64 of JSON": (s) => Buffer.from(JSON.stringify({ user: "x", pw: s })).toString("base64"),
    "base64 glued to a word": (s) => `token${Buffer.from(s).toString("base64")}`,
    "base64 after a path": (s) => `/kvm/v2/get/auth/${Buffer.from(`x${s}`).toString("base64")}`,
    hex: (s) => Buffer.from(s).toString("hex"),
    "HEX": (s) => Buffer.from(s).toString("hex").toUpperCase(),
    "hex bytes spaced": (s) => bytes(s).map((b) => b.toString(16).padStart(2, "0")).join(" "),
    "hex bytes with colons": (s) => bytes(s).map((b) => b.toString(16).padStart(2, "0")).join(":"),
    "hex bytes as 0x list": (s) => bytes(s).map((b) => `0x${b.toString(16)}`).join(", "),
    "decimal bytes": (s) => `[${bytes(s).join(",")}]`,
    "decimal bytes spaced": (s) => bytes(s).join(" "),
    "decimal bytes as a printed list": (s) => `[${bytes(s).join(", ")}]`,
    "octal bytes separated by semicolons": (s) => bytes(s).map((b) => b.toString(8)).join("; "),
    "UTF-16 bytes as a printed list": (s) => `[${[...Buffer.from(s, "utf16le")].join(", ")}]`,
    "characters as a JSON list": (s) => JSON.stringify([...s]),
    "characters between spaces": (s) => [...s].join(" "),
    "characters between dashes": (s) => [...s].join("-"),
    "UTF-16LE": (s) => Buffer.from(s, "utf16le").toString("latin1"),
    "UTF-16LE as JSON (\\u0000 after each character)": (s) => JSON.stringify(Buffer.from(s, "utf16le").toString("latin1")).slice(1, -1),
    "UTF-16BE": (s) => Buffer.from(s, "utf16le").swap16().toString("latin1"),
    "UTF-16 as hex": (s) => Buffer.from(s, "utf16le").toString("hex"),
    "UTF-32LE": (s) => utf32(s, true),
    "UTF-32BE": (s) => utf32(s, false),
    "zero-width spaces between characters": (s) => [...s].join("\u200b"),
    "soft hyphens between characters": (s) => [...s].join("&shy;"),
    "full-width letters": (s) => [...s].map((c) => (c >= "!" && c <= "~" ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join(""),
    "upper case": (s) => s.toUpperCase(),
    "lower case": (s) => s.toLowerCase(),
    "cut short by the server": (s) => `${s.slice(0, Math.max(8, s.length - 2))}...`,
    "percent inside base64 inside JSON": (s) => JSON.stringify({ d: Buffer.from(encodeURIComponent(s)).toString("base64") }),
    "addslashes inside percent": (s) => encodeURIComponent(s.replace(/(['"\\])/g, "\\$1")),
};
