// Builds the trading screen into internal/webui/dist, which the Go binary
// embeds. The output is reproducible: file names carry content hashes and
// nothing depends on the build time or machine, so CI can rebuild and
// compare with what is committed.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/",
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: "../internal/webui/dist",
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:8080",
      "/socket.io": { target: "ws://127.0.0.1:8080", ws: true },
    },
  },
});
