// Counts requests to the tests' S3 server by operation, passing Host on (signed); its own process, so a test blocked
// in execFileSync does not block it. `node s3Relay.js <port>` prints its port; GET /__relay/counts gives the counts.
"use strict";
const http = require("node:http");

const target = Number(process.argv[2]);
const counts = {};

/** The S3 operation of a path-style request. */
function operationOf(method, url) {
    const { pathname, searchParams } = new URL(url, "http://relay");
    const objectKey = pathname.split("/").filter(Boolean).length > 1;
    if (method === "GET") return objectKey ? "GetObject" : searchParams.get("list-type") === "2" ? "ListObjectsV2" : "ListObjects";
    if (method === "PUT") return objectKey ? "PutObject" : "CreateBucket";
    if (method === "DELETE") return objectKey ? "DeleteObject" : "DeleteBucket";
    if (method === "HEAD") return objectKey ? "HeadObject" : "HeadBucket";
    return `${method} ${pathname}`;
}

const relay = http.createServer((req, res) => {
    if (req.url === "/__relay/counts") return void res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(counts));
    const operation = operationOf(req.method, req.url);
    counts[operation] = (counts[operation] || 0) + 1;
    const forward = http.request({ host: "127.0.0.1", port: target, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode || 502, answer.headers);
        answer.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
});
relay.listen(0, "127.0.0.1", () => process.stdout.write(`${relay.address().port}\n`));
// Ends with the test process that started it.
process.on("disconnect", () => process.exit(0));
