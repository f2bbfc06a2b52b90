// Builds the playground into the Python package (codeact/playground/static), with stable file
// names so the committed build can be compared with a rebuild (check-build.sh).
import { defineConfig } from "vite";

export default defineConfig({
  base: "./",
  build: {
    outDir: "../codeact/playground/static",
    emptyOutDir: true,
    sourcemap: false,
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    rollupOptions: {
      output: {
        entryFileNames: "assets/playground.js",
        chunkFileNames: "assets/[name].js",
        assetFileNames: "assets/[name][extname]",
      },
    },
  },
});
