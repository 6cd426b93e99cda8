import { createServer } from "node:http";
import { AddressInfo } from "node:net";

export type Reply = { status: number; text: string };

/** A loopback server that answers each endpoint (the path after /kvm/v2/) with the reply the test set last. */
export interface ReplyServer {
    url: string;
    replies: Record<string, Reply>;
    close(): Promise<void>;
}

export async function replyServer(): Promise<ReplyServer> {
    const server = createServer((req, res) => {
        const endpoint = (req.url ?? "").replace(/^\/kvm\/v2\//, "");
        req.resume();
        req.on("end", () => {
            const reply = peer.replies[endpoint] ?? { status: 500, text: "no reply for this endpoint" };
            res.writeHead(reply.status, { "content-type": "application/json" }).end(reply.text);
        });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const peer: ReplyServer = {
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        replies: {},
        close: () => new Promise<void>((r) => server.close(() => r())),
    };
    return peer;
}
