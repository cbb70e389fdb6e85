// The Response every door answers with: the fetch API of the HTTP server adapter (@whatwg-node/server's, from
// @whatwg-node/fetch), not Node's built-in one. The adapter writes a body it made itself (a string or a buffer) to
// the socket in one call; a built-in Response's body is a web ReadableStream, read chunk by chunk through promises,
// and building it (undici's body extraction, transferable streams) cost about 6 % of a REST request (bench/README.md,
// "One adapter").
export { Response } from '@whatwg-node/fetch';
