// The Response every door answers with (docs/decisions.md §14): the fetch API of the HTTP server adapter
// (@whatwg-node/server's, from @whatwg-node/fetch), not Node's built-in one. The adapter writes a body it made itself
// (a string or a buffer) to the socket in one call, with Content-Length; a built-in Response's body is a web
// ReadableStream, read chunk by chunk through promises and sent chunked, which cost about 30 % of a REST list request
// (bench/archive.md, "One adapter"). A check `x instanceof Response` must use this import too.
export { Response } from '@whatwg-node/fetch';
