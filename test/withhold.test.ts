// Credentials never leave (provider/client/withhold.ts), judged on echoes made with the platform's own encoders, not
// the code under test, alone and inside servers' messages; EDIS's plain messages are quoted untouched.
import { EdisApiError } from "../provider/client/errors";
import { addSecret, forgetSecrets, holdsSecret, withhold } from "../provider/client/withhold";
import { ECHOES } from "./support/echoes";

const ACCOUNTS = [
    { email: "o'brien@example.com", password: `Pa'ss"w0rd+&=ä` },
    { email: "ops@example.org", password: "s3cr3t!" },
    { email: "kunde@beispiel.de", password: "Straße-Passwort-2026" },
    { email: "demo@example.com", password: "correcthorsebatterystaple" },
    { email: "chaos+1@example.com", password: "Ch&os p+ss/wörd=1%" },
];

/** Where a server puts the echo. */
const FRAMES: Array<(echo: string) => string> = [
    (echo) => echo,
    (echo) => `Login failed for user '${echo}'`,
    (echo) => `SQLSTATE[28000]: Access denied (using password: ${echo})`,
];

describe.each(ACCOUNTS)("secrets $email / $password", ({ email, password }) => {
    beforeEach(() => {
        forgetSecrets();
        addSecret(password);
        addSecret(email, { wholeOnly: true });
    });
    afterAll(() => forgetSecrets());

    test.each(Object.keys(ECHOES))("withheld: the password or the e-mail, %s, alone or in a message", (how) => {
        for (const secret of [password, email]) {
            for (const frame of FRAMES) {
                const text = frame(ECHOES[how](secret));
                expect([how, text, withhold(text, { status: 500, bytes: 812 })]).toEqual([how, text, expect.stringMatching(/^\[withheld: .*\(HTTP 500, 812 bytes\)\]$/)]);
            }
        }
    });
});

describe("what is quoted", () => {
    beforeEach(() => {
        forgetSecrets();
        addSecret(`Pa'ss"w0rd+&=ä`);
        addSecret("o'brien@example.com", { wholeOnly: true });
    });

    test.each([
        "Your order must be reviewed by our team",
        "Service has been cancelled effective 2031-01-31",
        "Insufficient credit: order #5001 awaits payment of invoice #9002",
        "service terminated",
        "Unknown location_id 99",
        "Der Dienst wurde gekündigt.",
        "Le service n'existe pas",
        "Out of stock (KVM M, location 2)",
        "ERROR: try again later",
    ])("plain words pass untouched: %s", (text) => {
        expect(withhold(text)).toBe(text);
    });

    test.each([
        ["seven characters of the password", `near ss"w0rd.`],
        ["the provider's own words", "the password was not accepted"],
    ])("composed text names no secret unless it holds one of 8 or more whole: %s", (_how, text) => {
        expect(withhold(text, { scope: "composed" })).toBe(text);
    });

    test("a short, common password ('server') leaves the provider's own words whole", () => {
        addSecret("server");
        for (const text of ["EDIS get/kvmid: server_error (HTTP 503), retry 1 of 3", "web1.example.com (service 5001) is provisioned"]) {
            expect(withhold(text, { scope: "composed" })).toBe(text);
        }
    });

    test("composed text holding a secret whole, in any separators or escapes, is withheld", () => {
        for (const text of [`pw=Pa'ss"w0rd+&=ä`, `pw=PA\\'SS\\"W0RD+&=Ä`, "mail o%27brien%40example.com"]) {
            expect(withhold(text, { scope: "composed" })).toMatch(/^\[withheld: /);
        }
    });

    test("longer than the bound, control characters, or a hex run: withheld whatever the words", () => {
        for (const text of ["word ".repeat(200), "line one\nline two", "digest 9f86d081884c7d659a2feaa0c55ad015"]) expect(withhold(text)).toMatch(/^\[withheld: /);
    });

    test("an error quoting EDIS withholds the quote and keeps its own frame", () => {
        const e = new EdisApiError({ endpoint: "add/order", kind: "server_error", status: 500, serverMessage: `duplicate key 'o\\'brien@example.com'`, answerBytes: 120 });
        expect(e.message).toBe(
            "EDIS add/order: server error (HTTP 500); server said: [withheld: EDIS's text is not quoted, as it is not plainly words or holds a secret (HTTP 500, 120 bytes)]",
        );
    });

    test("every session signature is a secret from the moment it is added", () => {
        const signature = "aB3dE5fG7hI9jK1lM3nO5pQ7rS9tU1vW3xY5zA7bC9dE1fG3hI";
        addSecret(signature);
        expect(holdsSecret(`sig ${signature.slice(10, 18)}`)).toBe(true);
        expect(holdsSecret(`sig ${signature.slice(10, 17)}`)).toBe(false);
    });
});
