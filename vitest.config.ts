import { defineConfig } from "vitest/config";

// Workspace packages export "source" (their src/*.ts) first, so tests never run against a stale dist/.
const conditions = ["source", "module", "node", "development|production"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["packages/*/src/**/*.test.ts", "apps/*/src/**/*.test.ts"],
          environment: "node",
        },
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test-e2e/**/*.test.ts"],
          environment: "node",
          // Namespace tests touch real kernels and real daemons: one file at a time keeps them readable.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
