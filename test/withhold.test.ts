/**
 * Credentials never leave, whatever the echo's escaping (provider/client/withhold.ts): examples, including the
 * third review's, of texts that must be withheld whole and texts that must pass untouched. The property test
 * (answers.property.test.ts) tries escapings nobody listed.
 */
import { EdisApiError } from "../provider/client/errors";
import { addSecret, forgetSecrets, holdsSecret, withhold } from "../provider/client/withhold";

const EMAIL = "o'brien@example.com";
const PASSWORD = `Pa'ss"w0rd+&=ä`;

beforeEach(() => {
    forgetSecrets();
    addSecret(PASSWORD);
    addSecret(EMAIL, { wholeOnly: true });
});
afterAll(() => forgetSecrets());

const held: Array<[string, string]> = [
    ["PHP's addslashes", `SQLSTATE[42000]: syntax error near 'o\\'brien@example.com' AND pw = 'Pa\\'ss\\"w0rd+&=ä'`],
    ["SQL's doubled quote", `near 'o''brien@example.com'`],
    ["a JSON string inside a JSON string", JSON.stringify(JSON.stringify({ user: EMAIL }))],
    ["three levels of JSON", JSON.stringify(JSON.stringify(JSON.stringify({ pw: PASSWORD })))],
    ["percent, form encoding", `email=${encodeURIComponent(EMAIL)}&pw=${new URLSearchParams({ p: PASSWORD }).toString().slice(2)}`],
    ["percent, twice", encodeURIComponent(encodeURIComponent(EMAIL))],
    ["HTML entities, numeric", [...EMAIL].map((c) => `&#${c.codePointAt(0)};`).join("")],
    ["HTML entities, named", "o&apos;brien&commat;example&period;com"],
    ["\\x escapes", [...Buffer.from(PASSWORD)].map((b) => `\\x${b.toString(16)}`).join("")],
    ["\\u escapes", [...PASSWORD].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")],
    ["quoted-printable", "pw=3DPa'ss\"w0rd+&=3D=C3=A4"],
    ["base64", Buffer.from(`pw=${PASSWORD}`).toString("base64")],
    ["upper case", EMAIL.toUpperCase()],
    ["8 consecutive characters of the password", `... ss"w0rd+ ...`],
    ["the password cut short by the server", `pw=Pa'ss"w0r...`],
    ["hex", Buffer.from(PASSWORD).toString("hex")],
    // the fourth review's: base64 without a prefix, glued to a prefix, with NULs, of Latin-1 bytes
    ["base64 of the password alone", `bad pw ${Buffer.from(PASSWORD).toString("base64")}`],
    ["base64 glued to a word", `token_${Buffer.from(`${EMAIL}:${PASSWORD}`).toString("base64url")}`],
    ["base64 after a path's slash", `rejected /kvm/v2/get/auth/${Buffer.from(`x${PASSWORD}`).toString("base64")}`],
    ["AUTH PLAIN (NUL separators)", `AUTH PLAIN ${Buffer.from(`\0${EMAIL}\0${PASSWORD}`).toString("base64")}`],
    ["base64 of Latin-1 bytes", `pw ${Buffer.from(PASSWORD, "latin1").toString("base64")}`],
    // the second review's: base64 glued to letters, hex off its alignment or spaced, UTF-16, byte lists, invisible characters
    ["base64 glued to letters", `token${Buffer.from(PASSWORD).toString("base64")}`],
    ["hex glued to hex letters", `id cafe${Buffer.from(PASSWORD).toString("hex")}`],
    ["hex with spaces between bytes", `pw bad ${[...Buffer.from(PASSWORD)].map((b) => b.toString(16).padStart(2, "0")).join(" ")}`],
    ["hex with colons", [...Buffer.from(PASSWORD)].map((b) => b.toString(16).padStart(2, "0")).join(":")],
    ["UTF-16LE as hex", Buffer.from(PASSWORD, "utf16le").toString("hex")],
    ["a Buffer as JSON", JSON.stringify({ type: "Buffer", data: [...Buffer.from(PASSWORD)] })],
    ["SQL's CHAR()", `CHAR(${[...Buffer.from(EMAIL)].join(",")})`],
    ["a zero-width space in the e-mail", EMAIL.replace("@", "\u200b@")],
    ["soft hyphens in the password", [...PASSWORD].join("&shy;")],
    ["an address spelled out", "o'brien (at) example [dot] com"],
    // the fifth review's: base64 after a long prefix of any kind, lists of any separator, an address in bare words
    ["base64 after a hex digest", `debug ${"9f".repeat(32)}${Buffer.from(`pw=${PASSWORD}`).toString("base64")}`],
    ["base64 after other base64", `${Buffer.from("x".repeat(29)).toString("base64").replace(/=/g, "")}${Buffer.from(`pw=${PASSWORD}`).toString("base64")}`],
    ["hex bytes with 0x and commas", [...Buffer.from(PASSWORD)].map((b) => `0x${b.toString(16)}`).join(", ")],
    ["hex bytes with commas", [...Buffer.from(PASSWORD)].map((b) => b.toString(16).padStart(2, "0")).join(",")],
    ["decimal bytes with spaces", `[${[...Buffer.from(PASSWORD)].join(" ")}]`],
    ["PHP's str_split as JSON", JSON.stringify([...PASSWORD])],
    ["characters between dashes", [...PASSWORD].join("-")],
    ["an address in bare words", "o'brien at example dot com"],
    // the sixth review's: a list after a label glued to it
    ["decimal bytes after a label", `password: ${[...Buffer.from(PASSWORD)].join(",")}`],
    ["a single-character list after a label", `pw=${[...PASSWORD].map((c) => JSON.stringify(c)).join(",")}`],
    ["one encoding among many others (past the forms' limit: withheld, fails closed)", `It''s a+b &amp; c =41=42 %41 \n 0x414243444546 65,66,67,68,69,70 café Ａ ${Buffer.from(encodeURIComponent(JSON.stringify({ pw: PASSWORD }))).toString("base64")}`],
];

test.each(held)("withheld: %s", (_how, text) => {
    expect(holdsSecret(text)).toBe(true);
    expect(withhold(text, { status: 500, bytes: 812 })).toBe(
        "[withheld: this text held the account's e-mail, password or a session secret in some encoding (HTTP 500, 812 bytes)]",
    );
});

test.each([
    ["an ordinary refusal", "Your order must be reviewed by our team"],
    ["seven characters of the password", `near ss"w0rd.`],
    ["the e-mail's domain alone", "mail to support@example.com"],
    ["ids and words", "Insufficient credit: order #5001 awaits payment of invoice #9002"],
])("passes untouched: %s", (_how, text) => {
    expect(withhold(text)).toBe(text);
});

test("an error quoting EDIS withholds the quote and keeps its own frame; the journal and the log get the same", () => {
    const e = new EdisApiError({ endpoint: "add/order", kind: "server_error", status: 500, serverMessage: `duplicate key 'o\\'brien@example.com'`, answerBytes: 120 });
    expect(e.message).toBe(
        "EDIS add/order: server error (HTTP 500); server said: [withheld: this text held the account's e-mail, password or a session secret in some encoding (HTTP 500, 120 bytes)]",
    );
    expect(e.message).not.toMatch(/brien/);
});

test("a secret shorter than the window, base64-encoded after a prefix glued to it, is found", () => {
    addSecret("s3cr3t!");
    for (const text of [`token${Buffer.from("s3cr3t!").toString("base64")}`, `rejected /kvm/v2/get/auth/${Buffer.from("s3cr3t!").toString("base64")}`]) {
        expect(holdsSecret(text)).toBe(true);
    }
    expect(holdsSecret(`token${Buffer.from("s3cr3").toString("base64")}`)).toBe(false);
});

test("every session signature is a secret from the moment it is added", () => {
    const signature = "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI";
    addSecret(signature);
    expect(holdsSecret(`sig=${signature.slice(10, 18)}`)).toBe(true);
    expect(holdsSecret(`sig=${signature.slice(10, 17)}`)).toBe(false);
});
