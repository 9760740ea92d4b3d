// Stands in for the `ssh2` package in the compiled bundles (deploy/build.mjs). docker-modem loads ssh2 at start-up
// for Docker hosts reached over SSH, which Slipway never uses (the agent talks to the local socket); loading it
// costs the agent ~30 MB (its poly1305 WebAssembly memory). Using it anyway fails loudly.
export class Client {
  constructor() {
    throw new Error('Docker over SSH is not available in this build of Slipway (ssh2 is left out)');
  }
}
